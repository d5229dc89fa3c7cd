/* minibench validate: clones measured against their originals on the simulator. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_validate.h"

#include <minibench/validate.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char validate_help[] =
    "Usage: minibench validate PROFDIR/<kernel>.<n> -o REPORTDIR [options]\n"
    "       minibench validate --suite DIR -o REPORTDIR [options]\n"
    "\n"
    "Measures clones against their original the way the GPGPU-MiniBench paper does\n"
    "(section 6; docs/validate.md): synthesises a clone per reduction factor, simulates\n"
    "the original and every clone on every configuration, and prints per configuration\n"
    "and reduction the original's and the clone's IPC and its relative error (Eq. 4), the\n"
    "simulation speedup (Eq. 3), the simulated-instruction ratio, whether the clone ranks\n"
    "the configurations as the original does and the first statistic that diverged;\n"
    "then the same comparison for L1 and L2 miss rates, DRAM bandwidth use, bank\n"
    "conflicts and transactions per request, SIMD efficiency, the shares of SP, SFU,\n"
    "DP, INT and memory instructions, and dependence stalls. The last lines split the\n"
    "error at the largest reduction into the clone's own (its error at R = 1) and what\n"
    "shortening the loops does (the clone's IPC there against at R = 1), and name the\n"
    "largest reduction whose clone is within 3% of the original's IPC on every config.\n"
    "REPORTDIR gets validate.csv, validate.json, speedup.svg (Fig. 16), ipc_error.svg\n"
    "(Fig. 17), ipc_configs.svg (Fig. 20) and the clones (clones/r<R>/).\n"
    "\n"
    "The original is launch n of the PTX and manifest named in PROFDIR/index.json, or,\n"
    "for a profile of an unmodified program (minibench profile -- ./app), that program\n"
    "run again under the runtime library with launch n simulated.\n"
    "\n"
    "Options:\n"
    "  --reduction LIST   reduction factors, comma-separated numbers >= 1 or max\n"
    "                     (default 1,2,4,8,max)\n"
    "  --config LIST      simulator presets or config files, comma-separated\n"
    "                     (default conf1,conf2,conf3,conf4)\n"
    "  --seed S           the clones' seed (default 1)\n"
    "  --repeat N         time every simulation N times and take the median (default 1)\n"
    "  --ptx FILE         the original's PTX, instead of the one index.json names\n"
    "  --launch L.json    the original's manifest, instead of the one index.json names\n"
    "  --max-insts N      fail a simulated launch after N warp instructions\n"
    "  --suite DIR        validate every example of DIR (subdirectories with a launch.json\n"
    "                     and one .ptx): each example's busiest launch is profiled into\n"
    "                     REPORTDIR/<example>/profile and validated into REPORTDIR/<example>;\n"
    "                     REPORTDIR/summary.{txt,csv,json} and summary_*.svg hold the\n"
    "                     means (absolute IPC error, harmonic-mean speedup)\n"
    "  --manifest NAME    with --suite: the manifest file of each example (default\n"
    "                     launch.json; examples/*/launch_large.json are validation sizes)\n"
    "  -o, --output DIR   the report directory (created if missing); required\n"
    "  -h, --help         show this help\n"
    "\n"
    "Progress goes to standard error. Exit status 0, or 1 when the validation failed\n"
    "(with --suite: when no example could be validated), 2 for a usage error.\n";

enum { MAX_LIST = 32 };

/* Splits a comma-separated list in place; returns the count or -1 on an empty item. */
static int split_list(char *text, char **items, int max)
{
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max)
            return -1;
        items[n++] = tok;
    }
    return n;
}

static int parse_reductions(const char *prog, const char *text, double *out, size_t *n)
{
    char *copy = strdup(text), *items[MAX_LIST];
    int k = copy ? split_list(copy, items, MAX_LIST) : -1;
    if (k <= 0) {
        free(copy);
        return cli_usage_error(prog, "--reduction: expected a comma-separated list of at most %d factors",
                               MAX_LIST);
    }
    for (int i = 0; i < k; i++) {
        uint64_t v;
        if (strcmp(items[i], "max") == 0) {
            out[i] = 0;
        } else if (cli_parse_number(prog, "--reduction", items[i], 1, 1u << 30, &v)) {
            out[i] = (double)v;
        } else {
            free(copy);
            return MB_EXIT_USAGE;
        }
        for (int j = 0; j < i; j++) {
            if (out[j] == out[i]) {
                int rc = cli_usage_error(prog, "--reduction: '%s' is listed twice", items[i]);
                free(copy);
                return rc;
            }
        }
    }
    free(copy);
    *n = (size_t)k;
    return 0;
}

static void show_progress(void *ctx, const char *what)
{
    int *tty = ctx;
    if (*tty) {
        fprintf(stderr, "\r\033[Kminibench validate: %s", what);
        fflush(stderr);
    } else if (strncmp(what, "example ", 8) == 0) {
        fprintf(stderr, "minibench validate: %s\n", what);
    }
}

static void end_progress(const int *tty)
{
    if (*tty)
        fprintf(stderr, "\r\033[K");
}

int cmd_validate(int argc, char **argv)
{
    const char *prog = "minibench validate";
    const char *red_s = NULL, *config_s = NULL, *seed_s = NULL, *repeat_s = NULL, *ptx = NULL,
               *launch = NULL, *max_s = NULL, *suite = NULL, *output = NULL, *manifest = NULL;
    cli_option opts[] = {{"--reduction", NULL, 1, &red_s}, {"--config", NULL, 1, &config_s},
                         {"--seed", NULL, 1, &seed_s},     {"--repeat", NULL, 1, &repeat_s},
                         {"--ptx", NULL, 1, &ptx},         {"--launch", NULL, 1, &launch},
                         {"--max-insts", NULL, 1, &max_s}, {"--suite", NULL, 1, &suite},
                         {"--manifest", NULL, 1, &manifest}, {"--output", "-o", 1, &output}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 1, &nfiles,
                       validate_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (suite ? nfiles != 0 : nfiles != 1)
        return cli_usage_error(prog, suite ? "--suite DIR takes no profile"
                                           : "expected one profile (PROFDIR/<kernel>.<n>) or --suite DIR");
    if (!output)
        return cli_usage_error(prog, "-o REPORTDIR is required");
    if (suite && (ptx || launch))
        return cli_usage_error(prog, "--ptx and --launch name one original; --suite finds its own");
    if (manifest && (!suite || !manifest[0] || strchr(manifest, '/')))
        return cli_usage_error(prog, "--manifest NAME goes with --suite and names a file, not a path");
    if ((ptx != NULL) != (launch != NULL))
        return cli_usage_error(prog, "--ptx and --launch go together");
    double reductions[MAX_LIST];
    size_t nreductions = 0;
    if ((rc = parse_reductions(prog, red_s ? red_s : "1,2,4,8,max", reductions, &nreductions)) != 0)
        return rc;
    char *config_copy = strdup(config_s ? config_s : "conf1,conf2,conf3,conf4"), *configs[MAX_LIST];
    int nconfigs = config_copy ? split_list(config_copy, configs, MAX_LIST) : -1;
    if (nconfigs <= 0) {
        free(config_copy);
        return cli_usage_error(prog, "--config: expected a comma-separated list of at most %d configs",
                               MAX_LIST);
    }
    uint64_t seed = 1, repeat = 1, max_insts = 0;
    if ((seed_s && !cli_parse_number(prog, "--seed", seed_s, 0, UINT64_MAX, &seed)) ||
        (repeat_s && !cli_parse_number(prog, "--repeat", repeat_s, 1, 99, &repeat)) ||
        (max_s && !cli_parse_number(prog, "--max-insts", max_s, 1, UINT64_MAX, &max_insts))) {
        free(config_copy);
        return MB_EXIT_USAGE;
    }
    int tty = isatty(STDERR_FILENO);
    mb_validate_options o = {reductions, nreductions, (const char *const *)configs, (size_t)nconfigs,
                             seed, (unsigned)repeat, ptx, launch, max_insts, manifest, NULL,
                             NULL, show_progress, &tty};
    mb_error err;
    mb_error_clear(&err);
    mb_buf text = MB_BUF_INIT;
    mb_status st;
    int validated = 1;
    if (suite) {
        mb_validate_suite *s = NULL;
        st = mb_validate_suite_run(suite, &o, output, &s, &err);
        if (st == MB_OK)
            st = mb_validate_suite_write(s, output, &err);
        if (st == MB_OK) {
            mb_validate_suite_text(s, &text);
            validated = 0;
            for (size_t i = 0; i < s->nentries; i++)
                validated += s->entries[i].report != NULL;
        }
        mb_validate_suite_free(s);
    } else {
        mb_validate_report *rep = NULL;
        cli_program_original prog_orig;
        st = cli_validate_program_setup(files[0], &o, &prog_orig, &err);
        if (st == MB_OK)
            st = mb_validate_profile(files[0], &o, &rep, &err);
        if (st == MB_OK)
            st = mb_validate_write(rep, output, &err);
        if (st == MB_OK)
            mb_validate_text(rep, &text);
        cli_validate_program_free(&prog_orig);
        mb_validate_report_free(rep);
    }
    end_progress(&tty);
    free(config_copy);
    if (st != MB_OK) {
        cli_print_error(&err);
        mb_buf_free(&text);
        return MB_EXIT_FAIL;
    }
    fwrite(text.data, 1, text.len, stdout);
    mb_buf_free(&text);
    if (!validated) {
        fprintf(stderr, "%s: no example could be validated\n", prog);
        return MB_EXIT_FAIL;
    }
    return MB_EXIT_OK;
}
