/* Writing cgraph graphs into memory buffers. */
#ifndef MB_GRAPHVIZ_IO_H
#define MB_GRAPHVIZ_IO_H

#include <graphviz/cgraph.h>
#include <minibench/util.h>

/* Opens a directed strict graph whose objects get IDs in creation order, so
 * that writing and laying it out do not depend on heap addresses (cgraph's
 * default IDs are the addresses of the interned names). */
Agraph_t *mb_graphviz_open(const char *name);

/* Serialises `g` as DOT text appended to `out`. */
mb_status mb_graphviz_write(Agraph_t *g, mb_buf *out, const char *what, mb_error *err);

#endif
