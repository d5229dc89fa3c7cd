/* validate: SVG line and bar charts (speedup, IPC error, IPC comparison). */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "svg_plot.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    for (const char *p = strstr(hay, needle); p; p = strstr(p + len, needle))
        n++;
    return n;
}

/* A small well-formedness check, enough for what the plot writer emits:
 * balanced and properly nested tags, one root element, quoted attributes,
 * no stray '<' or '>' in text and only the five predefined entities. */
static void assert_well_formed(const char *s)
{
    const char *stack[256];
    size_t nstack[256], depth = 0, roots = 0;
    const char *p = s;
    while (*p) {
        if (*p == '&') {
            static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
            int ok = 0;
            for (size_t i = 0; i < 5; i++)
                ok |= strncmp(p, ents[i], strlen(ents[i])) == 0;
            assert_true(ok);
            p++;
            continue;
        }
        assert_true(*p != '>');
        if (*p != '<') {
            /* Only whitespace may stand outside the root element. */
            if (depth == 0)
                assert_non_null(strchr(" \t\r\n", *p));
            p++;
            continue;
        }
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t nlen = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-:_");
        assert_true(nlen > 0);
        const char *q = name + nlen;
        char quote = 0;
        for (; *q && (quote || *q != '>'); q++) {
            assert_true(*q != '<');
            if (quote && *q == quote)
                quote = 0;
            else if (!quote && (*q == '"' || *q == '\''))
                quote = *q;
        }
        assert_int_equal(*q, '>');
        if (closing) {
            assert_true(depth > 0);
            depth--;
            assert_int_equal(nstack[depth], nlen);
            assert_memory_equal(stack[depth], name, nlen);
        } else if (q[-1] != '/') {
            if (depth == 0)
                roots++;
            assert_true(depth < 256);
            stack[depth] = name;
            nstack[depth++] = nlen;
        } else if (depth == 0) {
            roots++;
        }
        p = q + 1;
    }
    assert_int_equal(depth, 0);
    assert_int_equal(roots, 1);
}

static void assert_document(const mb_buf *b)
{
    assert_false(b->failed);
    assert_non_null(b->data);
    assert_memory_equal(b->data, "<svg", 4);
    assert_true(b->len >= 7);
    assert_string_equal(b->data + b->len - 7, "</svg>\n");
    assert_int_equal(strlen(b->data), b->len);
    assert_well_formed(b->data);
    assert_null(strstr(b->data, "nan"));
    assert_null(strstr(b->data, "inf"));
}

/* Renders a chart, checks it is a sound document and returns it. */
static char *render(const mb_plot *p, int bars)
{
    mb_buf b = MB_BUF_INIT;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = bars ? mb_plot_bars_svg(p, &b, &err) : mb_plot_lines_svg(p, &b, &err);
    assert_int_equal(st, MB_OK);
    assert_document(&b);
    return b.data;
}

static const char *const factors[] = {"1", "2", "4", "8", "max"};

/* -------------------------------------------------------------- lines */

static void test_lines_basic(void **state)
{
    (void)state;
    const double a[] = {1.0, 1.9, 3.7, 7.1, 12.5};
    const double b[] = {1.0, 1.5, 2.2, 3.0, 4.1};
    const mb_plot_series series[] = {{"backprop", a}, {"bfs \"large\" & <x>", b}};
    const mb_plot p = {"a<b & c", "reduction factor", "speedup", factors, 5, series, 2, 1};
    char *svg = render(&p, 0);

    assert_non_null(strstr(svg, ">a&lt;b &amp; c</text>"));
    assert_null(strstr(svg, "a<b"));
    assert_non_null(strstr(svg, ">reduction factor</text>"));
    assert_non_null(strstr(svg, ">speedup</text>"));
    /* One path per series, a marker per point. */
    assert_int_equal(count(svg, "<path"), 2);
    assert_int_equal(count(svg, "<rect"), 0);
    assert_int_equal(count(svg, "<circle"), 10 + 2); /* + the legend markers */
    assert_non_null(strstr(svg, ">backprop</text>"));
    assert_non_null(strstr(svg, ">bfs &quot;large&quot; &amp; &lt;x&gt;</text>"));
    for (size_t i = 0; i < 5; i++) {
        char want[32];
        snprintf(want, sizeof(want), ">%s</text>", factors[i]);
        assert_non_null(strstr(svg, want));
    }
    /* Two colours from the palette, distinct. */
    assert_non_null(strstr(svg, "stroke=\"#1f77b4\""));
    assert_non_null(strstr(svg, "stroke=\"#ff7f0e\""));
    free(svg);
}

static void test_lines_nan_gaps(void **state)
{
    (void)state;
    const double gap[] = {1.0, NAN, 3.0, 4.0, INFINITY};
    const double none[] = {NAN, NAN, NAN, NAN, NAN};
    const double lone[] = {NAN, NAN, 2.0, NAN, -INFINITY};
    const mb_plot_series series[] = {{"gap", gap}, {"none", none}, {"lone", lone}};
    const mb_plot p = {"gaps", NULL, NULL, factors, 5, series, 3, 0};
    char *svg = render(&p, 0);

    /* "none" draws no path. */
    assert_int_equal(count(svg, "<path"), 2);
    /* The gap splits the first line into two pieces. */
    const char *key = "stroke=\"#1f77b4\" stroke-width=\"2\" d=\"";
    const char *d = strstr(svg, key);
    assert_non_null(d);
    d += strlen(key);
    const char *end = strchr(d, '"');
    size_t moves = 0;
    for (const char *q = d; q < end; q++)
        moves += *q == 'M';
    assert_int_equal(moves, 2);
    /* Markers only for the four finite values, plus three legend markers. */
    assert_int_equal(count(svg, "<circle"), 4 + 3);
    assert_non_null(strstr(svg, ">none</text>"));
    assert_null(strstr(svg, "no data"));
    free(svg);
}

static void test_log_decades(void **state)
{
    (void)state;
    const double v[] = {1.0, 10.0, 0.0, -5.0, 1000.0};
    const mb_plot_series series[] = {{"k", v}};
    const mb_plot p = {"log", NULL, NULL, factors, 5, series, 1, 1};
    char *svg = render(&p, 0);

    assert_non_null(strstr(svg, ">1</text>"));
    assert_non_null(strstr(svg, ">10</text>"));
    assert_non_null(strstr(svg, ">100</text>"));
    assert_non_null(strstr(svg, ">1000</text>"));
    assert_null(strstr(svg, ">10000</text>"));
    assert_null(strstr(svg, ">0.1</text>"));
    /* Zero and negative values cannot be shown on a log axis. */
    assert_int_equal(count(svg, "<circle"), 3 + 1);
    assert_null(strstr(svg, "class=\"zero\""));
    free(svg);
}

static void test_linear_ticks(void **state)
{
    (void)state;
    const double v[] = {0.0, 0.3, 1.0};
    const mb_plot_series series[] = {{"k", v}};
    const mb_plot p = {NULL, NULL, NULL, factors, 3, series, 1, 0};
    char *svg = render(&p, 0);
    const char *want[] = {">0</text>", ">0.2</text>", ">0.4</text>", ">0.6</text>",
                          ">0.8</text>", ">1</text>"};
    for (size_t i = 0; i < 6; i++)
        assert_non_null(strstr(svg, want[i]));
    assert_null(strstr(svg, "0000"));
    assert_null(strstr(svg, ">1.2</text>"));
    free(svg);
}

static void test_negative_zero_line(void **state)
{
    (void)state;
    const double err_pct[] = {0.0, -3.5, 2.0, 7.25, -12.0};
    const mb_plot_series series[] = {{"IPC error", err_pct}};
    mb_plot p = {"IPC error", "reduction factor", "IPC error (%)", factors, 5, series, 1, 0};
    char *svg = render(&p, 0);
    assert_int_equal(count(svg, "class=\"zero\""), 1);
    assert_non_null(strstr(svg, ">-10</text>"));
    assert_non_null(strstr(svg, ">0</text>"));
    free(svg);

    /* All positive: the axis does not cross zero, no zero line. */
    const double pos[] = {1.0, 2.0, 3.0, 4.0, 5.0};
    const mb_plot_series ps[] = {{"up", pos}};
    p.series = ps;
    svg = render(&p, 0);
    assert_null(strstr(svg, "class=\"zero\""));
    free(svg);
}

static void test_flat_and_single(void **state)
{
    (void)state;
    const char *const one[] = {"conf1"};
    const double v[] = {2.5};
    const mb_plot_series series[] = {{"only", v}};
    mb_plot p = {"one", NULL, NULL, one, 1, series, 1, 0};
    char *svg;
    for (int log_y = 0; log_y <= 1; log_y++)
        for (int bars = 0; bars <= 1; bars++) {
            p.log_y = log_y;
            svg = render(&p, bars);
            assert_int_equal(count(svg, bars ? "<rect" : "<circle"), 1 + !bars);
            free(svg);
        }
    /* Subnormal and huge values must neither crash nor print "inf". */
    const double odd[] = {0, 5e-324, -5e-324, 1e-310, NAN};
    const double huge[] = {1e300, -1e300, 0, 1, 2};
    const mb_plot_series os[] = {{"odd", odd}, {"huge", huge}};
    const mb_plot o = {"odd", NULL, NULL, factors, 5, os, 1, 0};
    svg = render(&o, 0);
    free(svg);
    svg = render(&o, 1);
    free(svg);
    const mb_plot oh = {"odd", NULL, NULL, factors, 5, os, 2, 0};
    svg = render(&oh, 0);
    free(svg);
    /* A flat zero series on a linear axis. */
    const double zeros[] = {0, 0, 0, 0, 0};
    const mb_plot_series zs[] = {{"zero", zeros}};
    const mb_plot z = {"flat", NULL, NULL, factors, 5, zs, 1, 0};
    svg = render(&z, 0);
    assert_int_equal(count(svg, "class=\"zero\""), 1);
    free(svg);
}

static void test_no_data(void **state)
{
    (void)state;
    const double none[] = {NAN, NAN, NAN, NAN, NAN};
    const double neg[] = {-1, -2, 0, NAN, -4};
    const mb_plot_series series[] = {{"none", none}, {"neg", neg}};
    const mb_plot p = {"empty", "x", "y", factors, 5, series, 2, 1};
    char *svg = render(&p, 0);
    assert_non_null(strstr(svg, ">no data</text>"));
    assert_int_equal(count(svg, "<path"), 0);
    assert_non_null(strstr(svg, ">none</text>"));
    free(svg);
    svg = render(&p, 1);
    assert_non_null(strstr(svg, ">no data</text>"));
    assert_int_equal(count(svg, "<rect"), 0);
    free(svg);
}

/* --------------------------------------------------------------- bars */

static double attr(const char *svg, const char *name)
{
    const char *p = strstr(svg, name);
    assert_non_null(p);
    return strtod(p + strlen(name), NULL);
}

static void test_bars_basic(void **state)
{
    (void)state;
    const char *const confs[] = {"conf1", "conf2", "conf3"};
    const double orig[] = {1.25, 0.8, 2.0};
    const double clone[] = {1.2, NAN, 2.1};
    const mb_plot_series series[] = {{"original", orig}, {"clone", clone}};
    const mb_plot p = {"IPC", "config", "IPC", confs, 3, series, 2, 0};
    char *svg = render(&p, 1);
    assert_int_equal(count(svg, "<rect"), 5);
    assert_int_equal(count(svg, "<path"), 0); /* legend keys and frame are not data */
    assert_int_equal(count(svg, "fill=\"#1f77b4\"><title>"), 3);
    assert_int_equal(count(svg, "fill=\"#ff7f0e\"><title>"), 2);
    assert_non_null(strstr(svg, ">original</text>"));
    assert_non_null(strstr(svg, ">clone</text>"));
    assert_non_null(strstr(svg, "<title>original, conf1: 1.25</title>"));
    assert_null(strstr(svg, "rotate(-45")); /* short labels stay horizontal */
    /* Few groups on a wide chart: bars stay bars, not slabs. */
    for (const char *r = strstr(svg, "<rect"); r; r = strstr(r + 1, "<rect"))
        assert_true(attr(r, "width=\"") <= 48.0);
    free(svg);
}

static void test_bars_many_groups(void **state)
{
    (void)state;
    enum { NK = 20, NC = 4, N = NK * NC };
    char names[N][32];
    const char *cats[N];
    double orig[N], clone[N];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "kernel_%02d/conf%d", i / NC, i % NC + 1);
        cats[i] = names[i];
        orig[i] = 0.5 + (i % 7) * 0.3;
        clone[i] = orig[i] * (i % 2 ? 1.05 : 0.93);
    }
    const mb_plot_series series[] = {{"original", orig}, {"clone", clone}};
    const mb_plot p = {"suite", "kernel/config", "IPC", cats, N, series, 2, 0};
    char *svg = render(&p, 1);
    assert_int_equal(count(svg, "<rect"), 2 * N);
    assert_int_equal(count(svg, "rotate(-45"), N);
    /* The chart widens instead of squeezing the bars. */
    assert_true(attr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"") > N * 20.0);
    const char *r = strstr(svg, "<rect");
    assert_true(attr(r, "width=\"") >= 6.0);
    free(svg);
}

static void test_many_series_cycle(void **state)
{
    (void)state;
    enum { NS = 23 };
    double v[NS][5];
    mb_plot_series series[NS];
    char names[NS][16];
    for (int s = 0; s < NS; s++) {
        for (int j = 0; j < 5; j++)
            v[s][j] = 1 + s + j;
        snprintf(names[s], sizeof(names[s]), "s%d", s);
        series[s].name = names[s];
        series[s].y = v[s];
    }
    const mb_plot p = {"many", NULL, NULL, factors, 5, series, NS, 0};
    char *svg = render(&p, 0);
    assert_int_equal(count(svg, "<path"), NS);
    assert_non_null(strstr(svg, ">s22</text>"));
    /* Ten colours, then the dash pattern distinguishes repeats. */
    assert_non_null(strstr(svg, "#17becf"));
    assert_non_null(strstr(svg, "stroke-dasharray"));
    free(svg);
}

/* ------------------------------------------------------ text and bytes */

static void test_escaping(void **state)
{
    (void)state;
    const char *const cats[] = {"a&b", "<c>", "\"d\"", "'e'"};
    const double v[] = {1, 2, 3, 4};
    const mb_plot_series series[] = {{"x'y", v}};
    const mb_plot p = {"t&'\"<>", "x<", "y>", cats, 4, series, 1, 0};
    for (int bars = 0; bars <= 1; bars++) {
        char *svg = render(&p, bars);
        assert_non_null(strstr(svg, ">t&amp;&apos;&quot;&lt;&gt;</text>"));
        assert_non_null(strstr(svg, ">a&amp;b</text>"));
        assert_non_null(strstr(svg, ">&lt;c&gt;</text>"));
        assert_non_null(strstr(svg, ">&quot;d&quot;</text>"));
        assert_non_null(strstr(svg, ">&apos;e&apos;</text>"));
        assert_non_null(strstr(svg, ">x&lt;</text>"));
        assert_non_null(strstr(svg, ">y&gt;</text>"));
        assert_non_null(strstr(svg, ">x&apos;y</text>"));
        free(svg);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    const double a[] = {1.0, 1.9, NAN, 7.1, 12.5};
    const double b[] = {-1.0, 0.5, 2.2, 3.0, 4.1};
    const mb_plot_series series[] = {{"a", a}, {"b", b}};
    const mb_plot p = {"same", "x", "y", factors, 5, series, 2, 0};
    for (int bars = 0; bars <= 1; bars++) {
        mb_buf x = MB_BUF_INIT, y = MB_BUF_INIT;
        mb_buf_puts(&y, "prefix\n"); /* the document is appended, not written over */
        assert_int_equal(bars ? mb_plot_bars_svg(&p, &x, NULL) : mb_plot_lines_svg(&p, &x, NULL),
                         MB_OK);
        assert_int_equal(bars ? mb_plot_bars_svg(&p, &y, NULL) : mb_plot_lines_svg(&p, &y, NULL),
                         MB_OK);
        assert_int_equal(y.len, x.len + 7);
        assert_memory_equal(y.data, "prefix\n", 7);
        assert_memory_equal(x.data, y.data + 7, x.len);
        mb_buf_free(&x);
        mb_buf_free(&y);
    }
}

/* A decimal-comma locale must not leak into coordinates. Skipped where no
 * such locale is installed. */
static void test_locale_independent(void **state)
{
    (void)state;
    const double a[] = {1.5, 2.25, 3.125, 0.5, 1.0};
    const mb_plot_series series[] = {{"a", a}};
    const mb_plot p = {"loc", NULL, NULL, factors, 5, series, 1, 0};
    char *before = render(&p, 0);
    static const char *const commas[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "nl_NL.UTF-8"};
    const char *got = NULL;
    for (size_t i = 0; i < 4 && !got; i++)
        got = setlocale(LC_NUMERIC, commas[i]);
    if (!got) {
        free(before);
        skip();
    }
    char *after = render(&p, 0);
    setlocale(LC_NUMERIC, "C");
    assert_string_equal(before, after);
    free(before);
    free(after);
}

/* ------------------------------------------------------------- errors */

static void expect_error(const mb_plot *p, mb_status want, const char *fragment)
{
    for (int bars = 0; bars <= 1; bars++) {
        mb_buf b = MB_BUF_INIT;
        mb_error err;
        mb_error_clear(&err);
        mb_status st = bars ? mb_plot_bars_svg(p, &b, &err) : mb_plot_lines_svg(p, &b, &err);
        assert_int_equal(st, want);
        assert_int_equal(err.status, want);
        assert_non_null(strstr(err.msg, fragment));
        assert_int_equal(b.len, 0); /* nothing half-written */
        mb_buf_free(&b);
    }
}

static void test_errors(void **state)
{
    (void)state;
    const double v[] = {1, 2, 3, 4, 5};
    const mb_plot_series ok[] = {{"a", v}};
    const mb_plot_series null_y[] = {{"a", v}, {"broken", NULL}};
    mb_plot p = {"t", NULL, NULL, factors, 5, ok, 1, 0};

    expect_error(NULL, MB_ERR_INVALID, "no plot");
    p.ncategories = 0;
    expect_error(&p, MB_ERR_INVALID, "no categories");
    p.ncategories = 5;
    p.nseries = 0;
    expect_error(&p, MB_ERR_INVALID, "no data series");
    p.series = null_y;
    p.nseries = 2;
    expect_error(&p, MB_ERR_INVALID, "series 2 (broken)");
    p.series = ok;
    p.nseries = 1;
    p.categories = NULL;
    expect_error(&p, MB_ERR_INVALID, "NULL category array");
    p.categories = factors;
    p.series = NULL;
    expect_error(&p, MB_ERR_INVALID, "NULL series array");

    /* Limits are checked before any array is read. */
    static mb_plot_series many[MB_PLOT_MAX_SERIES + 1];
    p.series = many;
    p.nseries = MB_PLOT_MAX_SERIES + 1;
    expect_error(&p, MB_ERR_LIMIT, "65 series, at most 64");
    p.series = ok;
    p.nseries = 1;
    p.ncategories = MB_PLOT_MAX_CATEGORIES + 1;
    expect_error(&p, MB_ERR_LIMIT, "4097 categories, at most 4096");

    /* At the limit it works. */
    enum { NC = MB_PLOT_MAX_CATEGORIES };
    static const char *cats[NC];
    static double big[NC];
    for (size_t i = 0; i < NC; i++) {
        cats[i] = "c";
        big[i] = (double)i;
    }
    const mb_plot_series bs[] = {{"big", big}};
    const mb_plot limit = {NULL, NULL, NULL, cats, NC, bs, 1, 0};
    char *svg = render(&limit, 1);
    assert_int_equal(count(svg, "<rect"), NC); /* a zero value is a bar of no height */
    free(svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_basic),
        cmocka_unit_test(test_lines_nan_gaps),
        cmocka_unit_test(test_log_decades),
        cmocka_unit_test(test_linear_ticks),
        cmocka_unit_test(test_negative_zero_line),
        cmocka_unit_test(test_flat_and_single),
        cmocka_unit_test(test_no_data),
        cmocka_unit_test(test_bars_basic),
        cmocka_unit_test(test_bars_many_groups),
        cmocka_unit_test(test_many_series_cycle),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_locale_independent),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("validate svg plot", tests, NULL, NULL);
}
