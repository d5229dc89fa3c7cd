/* Internal declarations shared by the synth sources. */
#ifndef MB_SYNTH_INTERNAL_H
#define MB_SYNTH_INTERNAL_H

#include <minibench/synth.h>

#include <stdarg.h>
#include <stdio.h>

#endif
