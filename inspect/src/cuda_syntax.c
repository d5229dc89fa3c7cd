/* The syntax check of generated (or any) CUDA text. */
#include "cuda_tu.h"

mb_status mb_cuda_check_syntax(const char *name, const char *text, size_t len, mb_error *err)
{
    cuda_tu ctu;
    mb_status st = cuda_tu_parse(&ctu, name, text, len, NULL, 0, err);
    if (st != MB_OK)
        return st;
    st = cuda_tu_first_error(&ctu, err);
    cuda_tu_dispose(&ctu);
    return st;
}
