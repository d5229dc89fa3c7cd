/* minibench synth: a profile to a miniature clone (clone.ptx, clone.cu, ...). */
#include "cli.h"

#include <minibench/emit.h>
#include <minibench/synth.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char synth_help[] =
    "Usage: minibench synth PROFDIR/<kernel>.<n> --reduction R|max [--seed S] -o CLONEDIR\n"
    "\n"
    "Generates a miniature synthetic clone of a profiled kernel (MiniBench paper,\n"
    "section 4.2): the same grid, CTA, control-flow graph, arrays and parameters;\n"
    "per block the original's opcode chain with a synthetic dataflow; branch\n"
    "conditions that reproduce the DFSG's counts and divergence; loop trip counts\n"
    "divided by R (rounded down, at least 1; where that would change how often a\n"
    "loop's exit diverges, lanes mixing trip counts keep a few iterations more, see\n"
    "docs/synth.md); addresses from the profiled affine models or coalescing and\n"
    "bank-conflict statistics. Writes into CLONEDIR:\n"
    "clone.ptx, clone.cu (one asm volatile block and a timed host main, checked with\n"
    "libclang), launch.json, Makefile and README.md, and prints each branch's case.\n"
    "The original's input, kept beside the profile (K.n.input<k>.bin), is copied as\n"
    "input<k>.bin and loaded by launch.json and clone.cu; a missing or changed file\n"
    "is an error (a profile that recorded none gives seeded bytes); an input<k>.bin\n"
    "an earlier clone left in CLONEDIR that this one does not read is removed.\n"
    "\n"
    "Options:\n"
    "  --reduction R     reduction factor: a number >= 1, or max (loops run once, but\n"
    "                    for the lanes kept longer, as above)\n"
    "  --seed S          seed of the clone's random choices (default 1)\n"
    "  -o, --output DIR  the clone directory (created if missing); required\n"
    "  -h, --help        show this help\n";

int cmd_synth(int argc, char **argv)
{
    const char *prog = "minibench synth";
    const char *red_s = NULL, *seed_s = NULL, *output = NULL;
    cli_option opts[] = {{"--reduction", NULL, 1, &red_s},
                         {"--seed", NULL, 1, &seed_s},
                         {"--output", "-o", 1, &output}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 1, &nfiles,
                       synth_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error(prog, "expected one profile (PROFDIR/<kernel>.<n>)");
    if (!red_s)
        return cli_usage_error(prog, "--reduction R|max is required");
    if (!output)
        return cli_usage_error(prog, "-o CLONEDIR is required");
    double r = 0;
    uint64_t v, seed = 1;
    if (strcmp(red_s, "max") != 0) {
        if (!cli_parse_number(prog, "--reduction", red_s, 1, 1u << 30, &v))
            return MB_EXIT_USAGE;
        r = (double)v;
    }
    if (seed_s && !cli_parse_number(prog, "--seed", seed_s, 0, UINT64_MAX, &seed))
        return MB_EXIT_USAGE;
    mb_error err;
    mb_error_clear(&err);
    mb_sprof *p = NULL;
    mb_clone_model *m = NULL;
    mb_status st = mb_sprof_load(files[0], &p, &err);
    if (st == MB_OK)
        st = mb_clone_build(p, r, seed, &m, &err);
    if (st == MB_OK)
        st = mb_emit_clone_dir(m, output, &err);
    if (st != MB_OK) {
        cli_print_error(&err);
        mb_clone_free(m);
        mb_sprof_free(p);
        return MB_EXIT_FAIL;
    }
    printf("clone of %s (reduction %s, seed %" PRIu64 ") in %s: %zu blocks, "
           "%" PRIu64 " thread instructions expected (original %" PRIu64 ")\n",
           m->kernel, red_s, seed, output, m->nblocks, m->expected_thread_insts,
           m->original_thread_insts);
    for (size_t i = 0; i < m->nbranches; i++)
        printf("  branch in block %d (line %d): %s\n", m->branches[i].block, m->branches[i].line,
               mb_clone_case_name(m->branches[i].kind));
    for (size_t f = 0; f < m->nfuncs; f++) {
        const mb_clone_model *fm = &m->funcs[f];
        printf("  called function %s: %zu blocks\n", fm->kernel, fm->nblocks);
        for (size_t i = 0; i < fm->nbranches; i++)
            printf("  branch in function %s, block %d (line %d): %s\n", fm->kernel,
                   fm->branches[i].block, fm->branches[i].line,
                   mb_clone_case_name(fm->branches[i].kind));
    }
    mb_clone_free(m);
    mb_sprof_free(p);
    return MB_EXIT_OK;
}
