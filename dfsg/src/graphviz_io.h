/* Writing cgraph graphs into memory buffers. */
#ifndef MB_GRAPHVIZ_IO_H
#define MB_GRAPHVIZ_IO_H

#include <graphviz/cgraph.h>
#include <minibench/util.h>

/* Serialises `g` as DOT text appended to `out`. */
mb_status mb_graphviz_write(Agraph_t *g, mb_buf *out, const char *what, mb_error *err);

#endif
