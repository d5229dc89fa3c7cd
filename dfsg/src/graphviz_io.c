/* DOT serialisation and SVG rendering through Graphviz. */
#define _POSIX_C_SOURCE 200809L
#include <minibench/dfsg.h>

#include <graphviz/gvc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graphviz_io.h"

/* --------------------------------------------------- deterministic IDs */

typedef struct seq_ids {
    Agraph_t *g;      /* owner of the interned names */
    mb_strmap *names; /* name -> index */
    char **strs;
    size_t n, cap;
    IDTYPE next_anonymous;
} seq_ids;

static void *ids_open(Agraph_t *g, Agdisc_t *disc)
{
    (void)disc;
    seq_ids *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->g = g;
    s->names = mb_strmap_new();
    if (!s->names) {
        free(s);
        return NULL;
    }
    s->next_anonymous = 1;
    return s;
}

/* Named objects get even IDs in order of first use, anonymous ones odd IDs. */
static long ids_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
    seq_ids *s = state;
    (void)objtype;
    if (!str) {
        *id = s->next_anonymous;
        s->next_anonymous += 2;
        return 1;
    }
    int k = mb_strmap_get(s->names, str, strlen(str));
    if (k < 0) {
        if (!createflag || MB_GROW(s->strs, s->cap, s->n + 1) != MB_OK || s->n >= 0x3FFFFFFF)
            return 0;
        /* interned through cgraph: it reads a header before the string to
         * tell HTML labels from plain ones */
        char *copy = agstrdup(s->g, str);
        if (!copy || mb_strmap_put(s->names, str, strlen(str), (int)s->n) != MB_OK) {
            if (copy)
                agstrfree(s->g, copy);
            return 0;
        }
        s->strs[s->n] = copy;
        k = (int)s->n++;
    }
    *id = (IDTYPE)(k + 1) * 2;
    return 1;
}

static long ids_alloc(void *state, int objtype, IDTYPE request)
{
    (void)state;
    (void)objtype;
    (void)request;
    return 0; /* no caller-chosen IDs */
}

static void ids_free(void *state, int objtype, IDTYPE id)
{
    (void)state;
    (void)objtype;
    (void)id; /* names live until the graph closes */
}

static char *ids_print(void *state, int objtype, IDTYPE id)
{
    seq_ids *s = state;
    (void)objtype;
    if (id % 2 || id == 0 || id / 2 > s->n)
        return NULL;
    return s->strs[id / 2 - 1];
}

static void ids_close(void *state)
{
    seq_ids *s = state;
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        agstrfree(s->g, s->strs[i]);
    free(s->strs);
    mb_strmap_free(s->names);
    free(s);
}

static void ids_register(void *state, int objtype, void *obj)
{
    (void)state;
    (void)objtype;
    (void)obj;
}

/* Read-only tables: the discipline cgraph calls back through. */
static Agiddisc_t seq_id_disc = {ids_open, ids_map, ids_alloc, ids_free, ids_print, ids_close,
                                 ids_register};
static Agdisc_t seq_disc = {&AgMemDisc, &seq_id_disc, &AgIoDisc};

Agraph_t *mb_graphviz_open(const char *name)
{
    return agopen((char *)(uintptr_t)name, Agstrictdirected, &seq_disc);
}

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
    FILE *fp = fmemopen(copy, len, "r");
    Agraph_t *g = fp ? agread(fp, &seq_disc) : NULL;
    if (fp)
        fclose(fp);
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
