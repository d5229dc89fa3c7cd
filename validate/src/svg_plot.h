/* SVG line and bar charts for the reports of `minibench validate`: the
 * speedup, IPC error and IPC comparison figures. The output is a standalone
 * SVG document that depends only on the input (no locale, no time stamps),
 * so reports can be diffed and checked in. */
#ifndef MB_SVG_PLOT_H
#define MB_SVG_PLOT_H

#include <minibench/util.h> /* mb_buf, mb_error, mb_status */

#include <stddef.h>

/* Beyond these the chart would be unreadable (and huge); MB_ERR_LIMIT. */
enum { MB_PLOT_MAX_CATEGORIES = 4096, MB_PLOT_MAX_SERIES = 64 };

typedef struct mb_plot_series {
    const char *name;  /* legend text */
    const double *y;   /* one value per category; NAN = no value (gap in a line, no bar) */
} mb_plot_series;

typedef struct mb_plot {
    const char *title, *xlabel, *ylabel;               /* NULL or "" = none */
    const char *const *categories; size_t ncategories; /* x axis, evenly spaced, in order */
    const mb_plot_series *series; size_t nseries;
    int log_y; /* logarithmic y axis (values must be > 0; others are skipped like NAN) */
} mb_plot;

/* Appends a complete standalone SVG document to `out`. Fails with
 * MB_ERR_INVALID (no categories, no series, a NULL array), MB_ERR_LIMIT (too
 * many categories or series) or MB_ERR_NOMEM; all values missing is not an
 * error, the axes are drawn with a "no data" note. */
mb_status mb_plot_lines_svg(const mb_plot *p, mb_buf *out, mb_error *err);
mb_status mb_plot_bars_svg(const mb_plot *p, mb_buf *out, mb_error *err);

#endif /* MB_SVG_PLOT_H */
