/* The graph algorithms are declared in the profiler's public header; this
 * name stays for the files that include it directly. */
#ifndef MINIBENCH_PROFILER_GRAPH_H
#define MINIBENCH_PROFILER_GRAPH_H
#include <minibench/profiler.h>
#endif
