/*
 * libcudart.so.13 itself: the whole static core is linked in; this file
 * only makes sure a program's profiles are complete when it exits.
 */
#include "rt.h"

__attribute__((destructor)) static void shim_unload(void)
{
    if (!rt_exists())
        return; /* a process that never used CUDA (a shell the program started) */
    mb_rt *rt = rt_enter();
    rt_profile_finish(rt);
    rt_sim_finish(rt);
    pthread_mutex_unlock(&rt->lock);
}
