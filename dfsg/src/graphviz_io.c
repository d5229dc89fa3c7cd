/* DOT serialisation and SVG rendering through Graphviz. */
#define _POSIX_C_SOURCE 200809L
#include <minibench/dfsg.h>

#include <graphviz/gvc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphviz_io.h"

mb_status mb_graphviz_write(Agraph_t *g, mb_buf *out, const char *what, mb_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory writing '%s'", what);
    int rc = agwrite(g, fp);
    int closed = fclose(fp);
    if (rc != 0 || closed != 0 || !text) {
        free(text);
        return mb_error_set(err, MB_ERR_IO, "", 0, 0, "Graphviz could not write '%s' as DOT", what);
    }
    mb_buf_append(out, text, len);
    free(text);
    if (out->failed)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory writing '%s'", what);
    return MB_OK;
}

mb_status mb_dot_render_svg(const char *dot, size_t len, const char *name, mb_buf *out,
                            mb_error *err)
{
    /* agmemread needs a NUL-terminated string */
    char *copy = malloc(len + 1);
    if (!copy)
        return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    memcpy(copy, dot, len);
    copy[len] = '\0';
    GVC_t *gvc = gvContext();
    if (!gvc) {
        free(copy);
        return mb_error_set(err, MB_ERR_UNSUPPORTED, name, 0, 0, "Graphviz could not start");
    }
    mb_status st = MB_OK;
    Agraph_t *g = agmemread(copy);
    if (!g) {
        char *why = aglasterr();
        st = mb_error_set(err, MB_ERR_PARSE, name, 0, 0, "not a valid DOT graph%s%s",
                          why ? ": " : "", why ? why : "");
        free(why);
    } else if (gvLayout(gvc, g, "dot") != 0) {
        st = mb_error_set(err, MB_ERR_UNSUPPORTED, name, 0, 0,
                          "Graphviz could not lay out the graph (is the dot layout plugin installed?)");
    } else {
        char *svg = NULL;
        unsigned int svg_len = 0;
        if (gvRenderData(gvc, g, "svg", &svg, &svg_len) != 0 || !svg)
            st = mb_error_set(err, MB_ERR_UNSUPPORTED, name, 0, 0,
                              "Graphviz could not render SVG (is the core plugin installed?)");
        else
            mb_buf_append(out, svg, svg_len);
        if (svg)
            gvFreeRenderData(svg);
        gvFreeLayout(gvc, g);
    }
    if (g)
        agclose(g);
    gvFreeContext(gvc);
    free(copy);
    if (st == MB_OK && out->failed)
        st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    return st;
}
