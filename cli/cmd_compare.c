/* minibench compare: two profiles side by side (a clone against its original). */
#include "cli.h"

#include <minibench/synth.h>

#include <stdlib.h>
#include <string.h>

static const char compare_help[] =
    "Usage: minibench compare PROF_A PROF_B [--json] [--check] [--reduction R|max]\n"
    "\n"
    "Compares two profiles (PROFDIR/<kernel>.<n>, as written by 'minibench profile'),\n"
    "usually an original (A) and its clone (B), and prints side by side: thread and\n"
    "warp instructions, whether the CFGs are equal, per-block ECount with the count\n"
    "expected of a clone at reduction R, branch divergence fractions, per memory access\n"
    "the sectors-per-request and bank-conflict distributions (and the mean 128-byte lines\n"
    "per request, shown, not checked), and the instruction mix, each with its\n"
    "difference. At a reduction other than 1 the mix of A is also given as\n"
    "a clone at R should run it (each block weighted by its expected ECount), and B's\n"
    "mix is checked against that.\n"
    "\n"
    "Options:\n"
    "  --json            print the comparison as JSON instead of text\n"
    "  --check           check the clone tolerances (docs/cli.md); exit 1 naming the\n"
    "                    first violated statistic. A divergence fraction or distribution\n"
    "                    over too few events to resolve its tolerance passes when it is\n"
    "                    as near as that many events can be (listed in the report)\n"
    "  --reduction R     the reduction factor B was made with (a number >= 1, or max;\n"
    "                    default 1); sets the expected ECounts inside loops\n"
    "  -h, --help        show this help\n"
    "\n"
    "Exit status: 0 when the comparison completed (with --check: and every statistic is\n"
    "within tolerance), 1 when a profile cannot be read or a --check tolerance is\n"
    "violated, 2 for usage errors.\n";

int cmd_compare(int argc, char **argv)
{
    const char *prog = "minibench compare";
    const char *json = NULL, *check = NULL, *red_s = NULL;
    cli_option opts[] = {{"--json", NULL, 0, &json},
                         {"--check", NULL, 0, &check},
                         {"--reduction", NULL, 1, &red_s}};
    const char *files[2];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 2, &nfiles,
                       compare_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 2)
        return cli_usage_error(prog, "expected two profiles (PROFDIR/<kernel>.<n>)");
    double r = 1;
    if (red_s) {
        uint64_t v;
        if (strcmp(red_s, "max") == 0)
            r = 0;
        else if (cli_parse_number(prog, "--reduction", red_s, 1, 1u << 30, &v))
            r = (double)v;
        else
            return MB_EXIT_USAGE;
    }
    mb_error err;
    mb_error_clear(&err);
    mb_sprof *a = NULL, *b = NULL;
    mb_status st = mb_sprof_load(files[0], &a, &err);
    if (st == MB_OK)
        st = mb_sprof_load(files[1], &b, &err);
    mb_buf text = MB_BUF_INIT, js = MB_BUF_INIT;
    char violation[512] = "";
    mb_compare_tolerance tol = mb_compare_default_tolerance(r);
    if (st == MB_OK)
        st = mb_sprof_compare(a, b, check || red_s ? &tol : NULL, json ? NULL : &text,
                              json ? &js : NULL, violation, sizeof violation, &err);
    int code = MB_EXIT_OK;
    if (st != MB_OK) {
        cli_print_error(&err);
        code = MB_EXIT_FAIL;
    } else {
        mb_buf *o = json ? &js : &text;
        fwrite(o->data ? o->data : "", 1, o->len, stdout);
        if (check && violation[0]) {
            fprintf(stderr, "minibench: compare: %s\n", violation);
            code = MB_EXIT_FAIL;
        }
    }
    mb_buf_free(&text);
    mb_buf_free(&js);
    mb_sprof_free(a);
    mb_sprof_free(b);
    return code;
}
