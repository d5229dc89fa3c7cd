/* SVG line and bar charts. Numbers are formatted by hand rather than with
 * printf's %f so that a caller's setlocale() can never turn "1.5" into "1,5";
 * text widths are estimated from character counts because there is no font
 * engine here, which is good enough to decide margins and label rotation. */
#include "svg_plot.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MAX_TICKS = 64, LABEL_MAX = 48 };

#define CHAR_W 0.6      /* average sans-serif advance, in units of font size */
#define PLOT_H 360.0
#define PLOT_MIN_W 480.0
#define VALUE_MAX 1e300 /* beyond this, tick arithmetic could overflow */
#define LEGEND_ROW 18.0

/* matplotlib's "tab10": distinguishable, and familiar from the paper figures.
 * Past ten series the marker shape and dash pattern change as well. */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
enum { NCOLORS = sizeof(palette) / sizeof(palette[0]) };
static const char *const dashes[] = {"", " stroke-dasharray=\"6 3\"", " stroke-dasharray=\"2 2\""};

typedef struct tick {
    double v; /* in axis units: the value, or its log10 on a log axis */
    int major;
    char label[LABEL_MAX]; /* empty: unlabelled minor tick */
} tick;

typedef struct chart {
    const mb_plot *p;
    mb_buf *out;
    int bars, log, empty, rotate;
    double lo, hi; /* y range in axis units */
    tick ticks[MAX_TICKS];
    size_t nticks;
    double left, top, w, h, slot, width, height, tick_w;
} chart;

/* Two decimals at most, trailing zeros dropped: byte-stable and compact. */
static void put_num(mb_buf *b, double v)
{
    if (!isfinite(v) || fabs(v) > 1e15)
        v = 0; /* cannot happen for clamped coordinates; keep the XML valid anyway */
    long long c = llround(v * 100);
    if (c < 0) {
        mb_buf_putc(b, '-');
        c = -c;
    }
    mb_buf_printf(b, "%lld", c / 100);
    if (c % 10 != 0)
        mb_buf_printf(b, ".%02lld", c % 100);
    else if (c % 100 != 0)
        mb_buf_printf(b, ".%lld", c % 100 / 10);
}

static void put_esc(mb_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': mb_buf_puts(b, "&amp;"); break;
        case '<': mb_buf_puts(b, "&lt;"); break;
        case '>': mb_buf_puts(b, "&gt;"); break;
        case '"': mb_buf_puts(b, "&quot;"); break;
        case '\'': mb_buf_puts(b, "&apos;"); break;
        /* XML 1.0 forbids most control characters even as references. */
        default: mb_buf_putc(b, (unsigned char)*s < 0x20 ? ' ' : *s);
        }
    }
}

/* A printf for SVG: %f coordinate, %s raw text, %e escaped text, %d int.
 * Only these, so no locale-dependent conversion can sneak in. */
static void emit(mb_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    while (*fmt) {
        size_t run = strcspn(fmt, "%");
        mb_buf_append(b, fmt, run);
        fmt += run;
        if (!*fmt || !fmt[1])
            break;
        switch (fmt[1]) {
        case 'f': put_num(b, va_arg(ap, double)); break;
        case 's': mb_buf_puts(b, va_arg(ap, const char *)); break;
        case 'e': put_esc(b, va_arg(ap, const char *)); break;
        case 'd': mb_buf_printf(b, "%d", va_arg(ap, int)); break;
        default: mb_buf_putc(b, fmt[1]);
        }
        fmt += 2;
    }
    va_end(ap);
}

static int has_text(const char *s) { return s && *s; }

/* Code points, not bytes, so UTF-8 names are not over-measured. */
static double text_w(const char *s, double font)
{
    size_t n = 0;
    for (; s && *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return (double)n * font * CHAR_W;
}

/* Writes n * 10^e: plainly for 1e-4 .. 1e6, otherwise as "1.5e7". Working on
 * the decimal digits of an integer keeps tick labels exact (no 0.30000000004). */
static void label(char out[LABEL_MAX], long long n, int e)
{
    char dg[24];
    int nd = snprintf(dg, sizeof(dg), "%llu",
                      n < 0 ? 0ull - (unsigned long long)n : (unsigned long long)n);
    while (nd > 1 && dg[nd - 1] == '0') { /* 1000e-3 is 1 */
        dg[--nd] = '\0';
        e++;
    }
    int mag = e + nd - 1;
    const char *sign = n < 0 ? "-" : "";
    if (n == 0)
        snprintf(out, LABEL_MAX, "0");
    else if (mag > 6 || mag < -4)
        snprintf(out, LABEL_MAX, "%s%c%s%se%d", sign, dg[0], nd > 1 ? "." : "", dg + 1, mag);
    else if (e >= 0)
        snprintf(out, LABEL_MAX, "%s%s%.*s", sign, dg, e, "000000");
    else if (mag >= 0)
        snprintf(out, LABEL_MAX, "%s%.*s.%s", sign, mag + 1, dg, dg + mag + 1);
    else
        snprintf(out, LABEL_MAX, "%s0.%.*s%s", sign, -mag - 1, "0000", dg);
}

/* Four significant digits, for tooltips. */
static void value_label(char out[LABEL_MAX], double v)
{
    int e = v == 0 ? 0 : (int)floor(log10(fabs(v))) - 3;
    /* In two steps because 10^-e alone overflows for subnormal values. */
    label(out, llround(e >= 0 ? v / pow(10, e) : v * 1e20 * pow(10, -e - 20)), e);
}

static int usable(const chart *c, double v)
{
    return isfinite(v) && fabs(v) <= VALUE_MAX && (!c->log || v >= 1 / VALUE_MAX);
}

static void add_tick(chart *c, double v, int major, long long n, int e, int labelled)
{
    if (c->nticks == MAX_TICKS)
        return;
    tick *t = &c->ticks[c->nticks++];
    t->v = v;
    t->major = major;
    t->label[0] = '\0';
    if (labelled)
        label(t->label, n, e);
}

/* 1-2-5 steps, about six ticks, bounds rounded out to whole steps. */
static void linear_ticks(chart *c, double lo, double hi)
{
    /* A flat range (or one too small for log10 of its step to be finite,
     * as with subnormals) is padded so the values sit mid-plot. */
    double mag = fmax(fabs(lo), fabs(hi));
    if (hi - lo <= fmax(mag * 1e-9, 1e-290)) {
        double pad = mag < 1e-290 ? 1 : mag * 0.1;
        lo -= pad;
        hi += pad;
    }
    double raw = (hi - lo) / 5;
    int e = (int)floor(log10(raw));
    double norm = raw / pow(10, e);
    /* Rounded to the nearest nice step, not up, so 0..2.7 gets 0.5 steps
     * rather than four ticks 1 apart. */
    int m = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
    if (m == 10) {
        m = 1;
        e++;
    }
    double step = m * pow(10, e);
    /* The epsilon keeps 0.3/0.1 = 2.9999999999999996 from adding a tick. */
    double k0 = floor(lo / step + 1e-9), k1 = ceil(hi / step - 1e-9);
    c->lo = k0 * step;
    c->hi = k1 * step;
    for (double k = k0; k <= k1; k++)
        add_tick(c, k * step, 1, (long long)k * m, e, 1);
}

/* Whole decades; 2 and 5 in between when few decades are shown, labelled
 * when the axis would otherwise have only two or three labels. */
static void log_ticks(chart *c, double lo, double hi)
{
    int dlo = (int)floor(log10(lo) + 1e-9), dhi = (int)ceil(log10(hi) - 1e-9);
    if (dhi <= dlo) {
        dlo--;
        dhi++;
    }
    int dstep = (dhi - dlo + 7) / 8;
    dlo = (int)floor((double)dlo / dstep) * dstep;
    dhi = (int)ceil((double)dhi / dstep) * dstep;
    int span = dhi - dlo;
    c->lo = dlo;
    c->hi = dhi;
    for (int d = dlo; d <= dhi; d += dstep) {
        add_tick(c, d, 1, 1, d, 1);
        if (dstep == 1 && span <= 6 && d < dhi) {
            add_tick(c, d + log10(2.0), 0, 2, d, span <= 2);
            add_tick(c, d + log10(5.0), 0, 5, d, span <= 2);
        }
    }
}

static double y_of(const chart *c, double axis_v)
{
    double t = (axis_v - c->lo) / (c->hi - c->lo);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return c->top + c->h * (1 - t);
}

static double y_of_value(const chart *c, double v) { return y_of(c, c->log ? log10(v) : v); }

static double x_of(const chart *c, size_t j) { return c->left + ((double)j + 0.5) * c->slot; }

static void layout(chart *c)
{
    const mb_plot *p = c->p;
    double vmin = INFINITY, vmax = -INFINITY;
    for (size_t s = 0; s < p->nseries; s++)
        for (size_t j = 0; j < p->ncategories; j++) {
            double v = p->series[s].y[j];
            if (usable(c, v)) {
                vmin = fmin(vmin, v);
                vmax = fmax(vmax, v);
            }
        }
    c->empty = vmin > vmax;
    if (c->empty) {
        vmin = c->log ? 1 : 0;
        vmax = c->log ? 10 : 1;
    }
    if (c->bars && !c->log) { /* bars grow from zero, so zero must be visible */
        vmin = fmin(vmin, 0);
        vmax = fmax(vmax, 0);
    }
    if (c->log)
        log_ticks(c, vmin, vmax);
    else
        linear_ticks(c, vmin, vmax);

    double cat_w = 0, name_w = 0;
    for (size_t i = 0; i < c->nticks; i++)
        c->tick_w = fmax(c->tick_w, text_w(c->ticks[i].label, 11));
    for (size_t j = 0; j < p->ncategories; j++)
        cat_w = fmax(cat_w, text_w(p->categories[j], 11));
    for (size_t s = 0; s < p->nseries; s++)
        name_w = fmax(name_w, has_text(p->series[s].name) ? text_w(p->series[s].name, 12) : 50);

    /* Bars get at least ~7 px each plus a gap per group, so an 80-group
     * suite chart grows wide instead of shrinking bars to hairlines. */
    double min_slot = c->bars ? 9.0 * (double)p->nseries + 10 : 28;
    c->w = fmax(PLOT_MIN_W, (double)p->ncategories * min_slot);
    c->slot = c->w / (double)p->ncategories;
    c->rotate = cat_w + 6 > c->slot;
    /* Labels rotated by 45 degrees hang to the left of their category. */
    double cat_left = c->rotate ? cat_w * 0.71 - c->slot / 2 + 12 : cat_w / 2 - c->slot / 2 + 6;
    c->left = fmax(c->tick_w + 18 + (has_text(p->ylabel) ? 24 : 0), cat_left);
    c->top = has_text(p->title) ? 44 : 16;
    c->h = PLOT_H;
    double bottom = c->top + c->h + (c->rotate ? cat_w * 0.71 + 22 : 24) +
                    (has_text(p->xlabel) ? 26 : 0) + 8;
    double legend_right = c->left + c->w + 24 + 34 + name_w + 10;
    c->width = fmax(legend_right, text_w(p->title, 16) + 20);
    c->height = fmax(bottom, c->top + LEGEND_ROW * (double)p->nseries + 10);
}

static void draw_axes(chart *c)
{
    const mb_plot *p = c->p;
    mb_buf *b = c->out;
    double x0 = c->left, x1 = c->left + c->w, yb = c->top + c->h;
    for (size_t i = 0; i < c->nticks; i++) {
        const tick *t = &c->ticks[i];
        double y = y_of(c, t->v);
        emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"%s\"/>\n", x0, y, x1, y,
             t->major ? "#d8d8d8" : "#eeeeee");
        if (t->label[0])
            emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"end\">%e</text>\n", x0 - 6, y + 4,
                 t->label);
    }
    if (!c->log && c->lo < 0 && c->hi > 0)
        emit(b, "<line class=\"zero\" x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"#555\"/>\n",
             x0, y_of(c, 0), x1, y_of(c, 0));
    for (size_t j = 0; j < p->ncategories; j++) {
        double x = x_of(c, j);
        if (!c->bars)
            emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"#f0f0f0\"/>\n", x,
                 c->top, x, yb);
        emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"#333\"/>\n", x, yb, x,
             yb + 4);
        if (c->rotate)
            emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"end\" transform=\"rotate(-45 %f %f)\">"
                    "%e</text>\n", x + 3, yb + 14, x + 3, yb + 14, p->categories[j]);
        else
            emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\">%e</text>\n", x, yb + 16,
                 p->categories[j]);
    }
    emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"#333\"/>\n"
            "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"#333\"/>\n",
         x0, c->top, x0, yb, x0, yb, x1, yb);
    if (has_text(p->title))
        emit(b, "<text x=\"%f\" y=\"26\" text-anchor=\"middle\" font-size=\"16\" "
                "font-weight=\"bold\">%e</text>\n", c->width / 2, p->title);
    if (has_text(p->xlabel))
        emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\" font-size=\"13\">%e</text>\n",
             x0 + c->w / 2, c->height - 12, p->xlabel);
    if (has_text(p->ylabel)) { /* next to the tick labels even when the margin is wider */
        double x = x0 - c->tick_w - 16, y = c->top + c->h / 2;
        emit(b, "<text x=\"%f\" y=\"%f\" text-anchor=\"middle\" font-size=\"13\" "
                "transform=\"rotate(-90 %f %f)\">%e</text>\n", x, y, x, y, p->ylabel);
    }
    if (c->empty)
        emit(b, "<text class=\"nodata\" x=\"%f\" y=\"%f\" text-anchor=\"middle\" font-size=\"14\" "
                "fill=\"#888\">no data</text>\n", x0 + c->w / 2, c->top + c->h / 2);
}

/* Shapes vary with every tenth series so colours that repeat stay apart. */
static void marker(mb_buf *b, size_t s, double x, double y, const char *tip_series,
                   const char *tip_cat, double v)
{
    int shape = (int)(s / NCOLORS % 4);
    const char *el = shape ? "polygon" : "circle";
    if (shape == 0)
        emit(b, "<circle cx=\"%f\" cy=\"%f\" r=\"3.5\"", x, y);
    else if (shape == 1)
        emit(b, "<polygon points=\"%f,%f %f,%f %f,%f %f,%f\"", x - 3, y - 3, x + 3, y - 3, x + 3,
             y + 3, x - 3, y + 3);
    else if (shape == 2)
        emit(b, "<polygon points=\"%f,%f %f,%f %f,%f\"", x, y - 4, x + 4, y + 3, x - 4, y + 3);
    else
        emit(b, "<polygon points=\"%f,%f %f,%f %f,%f %f,%f\"", x, y - 4.5, x + 4.5, y, x, y + 4.5,
             x - 4.5, y);
    if (!tip_cat) {
        mb_buf_puts(b, "/>\n");
        return;
    }
    char val[LABEL_MAX];
    value_label(val, v);
    emit(b, "><title>%e, %e: %e</title></%s>\n", tip_series, tip_cat, val, el);
}

static void draw_lines(chart *c)
{
    const mb_plot *p = c->p;
    mb_buf *b = c->out;
    for (size_t s = 0; s < p->nseries; s++) {
        const double *y = p->series[s].y;
        const char *color = palette[s % NCOLORS], *name = p->series[s].name;
        size_t j = 0;
        while (j < p->ncategories && !usable(c, y[j]))
            j++;
        if (j == p->ncategories)
            continue;
        emit(b, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s d=\"", color,
             dashes[s / NCOLORS % 3]);
        int pen_down = 0;
        for (; j < p->ncategories; j++) {
            if (!usable(c, y[j])) { /* a gap, not a line across the missing point */
                pen_down = 0;
                continue;
            }
            emit(b, "%s%f %f", pen_down ? "L" : "M", x_of(c, j), y_of_value(c, y[j]));
            pen_down = 1;
        }
        emit(b, "\"/>\n<g fill=\"%s\">\n", color);
        for (j = 0; j < p->ncategories; j++)
            if (usable(c, y[j]))
                marker(b, s, x_of(c, j), y_of_value(c, y[j]), name ? name : "",
                       p->categories[j] ? p->categories[j] : "", y[j]);
        mb_buf_puts(b, "</g>\n");
    }
}

static void draw_bars(chart *c)
{
    const mb_plot *p = c->p;
    mb_buf *b = c->out;
    /* A group fills 80% of its slot, but few wide slots would give slabs. */
    double bw = fmin(c->slot * 0.8 / (double)p->nseries, 48);
    double pad = (c->slot - bw * (double)p->nseries) / 2;
    double base = c->log ? c->top + c->h : y_of(c, 0);
    double inset = bw >= 7 ? 0.5 : 0; /* a hairline between neighbouring bars */
    char val[LABEL_MAX];
    for (size_t j = 0; j < p->ncategories; j++)
        for (size_t s = 0; s < p->nseries; s++) {
            double v = p->series[s].y[j];
            if (!usable(c, v))
                continue;
            double y = y_of_value(c, v), x = c->left + (double)j * c->slot + pad + (double)s * bw;
            value_label(val, v);
            emit(b, "<rect x=\"%f\" y=\"%f\" width=\"%f\" height=\"%f\" fill=\"%s\"><title>%e, %e: "
                    "%e</title></rect>\n", x + inset, fmin(y, base), bw - 2 * inset, fabs(base - y),
                 palette[s % NCOLORS], p->series[s].name ? p->series[s].name : "",
                 p->categories[j] ? p->categories[j] : "", val);
        }
}

static void draw_legend(chart *c)
{
    const mb_plot *p = c->p;
    mb_buf *b = c->out;
    double x = c->left + c->w + 24;
    for (size_t s = 0; s < p->nseries; s++) {
        double y = c->top + 8 + LEGEND_ROW * (double)s;
        const char *color = palette[s % NCOLORS];
        if (c->bars) {
            emit(b, "<polygon points=\"%f,%f %f,%f %f,%f %f,%f\" fill=\"%s\"/>\n", x + 5, y - 6,
                 x + 17, y - 6, x + 17, y + 6, x + 5, y + 6, color);
        } else {
            emit(b, "<line x1=\"%f\" y1=\"%f\" x2=\"%f\" y2=\"%f\" stroke=\"%s\" stroke-width=\"2\""
                    "%s/>\n<g fill=\"%s\">", x, y, x + 22, y, color, dashes[s / NCOLORS % 3], color);
            marker(b, s, x + 11, y, NULL, NULL, 0);
            mb_buf_puts(b, "</g>\n");
        }
        if (has_text(p->series[s].name))
            emit(b, "<text x=\"%f\" y=\"%f\" font-size=\"12\">%e</text>\n", x + 30, y + 4,
                 p->series[s].name);
        else
            emit(b, "<text x=\"%f\" y=\"%f\" font-size=\"12\">series %d</text>\n", x + 30, y + 4,
                 (int)s + 1);
    }
}

static mb_status plot_svg(const mb_plot *p, mb_buf *out, mb_error *err, int bars)
{
    if (!p || !out)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "plot: no plot or no output buffer");
    if (p->ncategories == 0)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "plot: no categories on the x axis");
    if (p->nseries == 0)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "plot: no data series");
    if (p->ncategories > MB_PLOT_MAX_CATEGORIES)
        return mb_error_set(err, MB_ERR_LIMIT, "", 0, 0, "plot: %zu categories, at most %d",
                            p->ncategories, MB_PLOT_MAX_CATEGORIES);
    if (p->nseries > MB_PLOT_MAX_SERIES)
        return mb_error_set(err, MB_ERR_LIMIT, "", 0, 0, "plot: %zu series, at most %d",
                            p->nseries, MB_PLOT_MAX_SERIES);
    if (!p->categories || !p->series)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "plot: NULL %s array",
                            p->categories ? "series" : "category");
    for (size_t s = 0; s < p->nseries; s++)
        if (!p->series[s].y)
            return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                                "plot: series %zu (%s) has no values (NULL y array)", s + 1,
                                p->series[s].name ? p->series[s].name : "unnamed");

    chart c;
    memset(&c, 0, sizeof(c));
    c.p = p;
    c.out = out;
    c.bars = bars;
    c.log = p->log_y != 0;
    layout(&c);
    /* Only data use <path> (a line per series) and <rect> (a bar per value),
     * so scripts and tests can count them; everything else is line/polygon. */
    emit(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%f\" height=\"%f\" "
              "viewBox=\"0 0 %f %f\" font-family=\"Helvetica, Arial, sans-serif\" "
              "font-size=\"11\">\n<polygon points=\"0,0 %f,0 %f,%f 0,%f\" fill=\"#fff\"/>\n",
         c.width, c.height, c.width, c.height, c.width, c.width, c.height, c.height);
    draw_axes(&c);
    if (bars)
        draw_bars(&c);
    else
        draw_lines(&c);
    draw_legend(&c);
    mb_buf_puts(out, "</svg>\n");
    if (out->failed)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "plot: out of memory writing SVG");
    return MB_OK;
}

mb_status mb_plot_lines_svg(const mb_plot *p, mb_buf *out, mb_error *err)
{
    return plot_svg(p, out, err, 0);
}

mb_status mb_plot_bars_svg(const mb_plot *p, mb_buf *out, mb_error *err)
{
    return plot_svg(p, out, err, 1);
}
