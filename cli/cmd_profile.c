/* minibench profile and render: capture DFSG profiles and draw them. */
#define _POSIX_C_SOURCE 200809L
#define PCRE2_CODE_UNIT_WIDTH 8
#include "cli.h"
#include "cli_cudart.h"

#include <minibench/dfsg.h>
#include <minibench/profiler.h>

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char profile_help[] =
    "Usage: minibench profile FILE.ptx --launch L.json -o PROFDIR [options]\n"
    "       minibench profile -o PROFDIR [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs the manifest's launches in order and profiles the selected ones (all by\n"
    "default). For each profiled launch n of kernel K it writes PROFDIR/K.n.dfsg.dot\n"
    "(the divergence flow statistics graph) and PROFDIR/K.n.profile.json (thread\n"
    "hierarchy, resources, loops with trip-count distributions, branches, memory\n"
    "coalescing and bank conflicts, affine address models, dependence distances,\n"
    "instruction mix), the launch's input as PROFDIR/K.n.input<k>.bin (the buffers\n"
    "its pointers point into, as they were before it ran, up to 256 MiB in all) and\n"
    "PROFDIR/index.json. Files are written only when every launch succeeded;\n"
    "launches not selected run without profiling.\n"
    "\n"
    "Options:\n"
    "  --launch L.json     the launch manifest (docs/formats.md)\n"
    "  -o, --output DIR    the profile directory (created if missing)\n"
    "  --kernel REGEX      profile only launches whose kernel name matches REGEX\n"
    "  --launch-index N    profile only launch N (0-based; may be combined with --kernel)\n"
    "  --banks N           shared-memory banks (default 32; the 1.x rule's cost,\n"
    "                      bank_cycles_cc1x, always takes half-warps on 16 banks)\n"
    "  --bank-bytes N      bytes per bank (default 4)\n"
    "  --stack BYTES       per-thread stack (see 'minibench run --help')\n"
    "  --threads N         1: count memory requests in the thread that runs the\n"
    "                      launch; 2: hand them to a second thread that counts them\n"
    "                      while the launch runs on (default when more than one CPU\n"
    "                      is online); the profile is the same\n"
    "  -h, --help          show this help\n"
    "\n"
    "minibench profile -o PROFDIR [options] -- PROGRAM [ARGS...]\n"
    "runs an unmodified CUDA program built with 'nvcc -cudart shared' on minibench's\n"
    "libcudart.so.13 and profiles its launches as they happen: launch n (0-based, in\n"
    "program order) of kernel K is written as PROFDIR/K.n.profile.json,\n"
    "PROFDIR/K.n.dfsg.dot and its input files, and PROFDIR/index.json lists them.\n"
    "Launches not selected\n"
    "run functionally only (fast-forward). The exit status is the program's; it is 1\n"
    "when the program succeeded but no launch was profiled. Options of this form:\n"
    "  -o, --output DIR    the profile directory (created if missing)\n"
    "  --kernel REGEX      profile only launches of kernels matching REGEX\n"
    "  --launch-index N    profile only launch N of the program\n"
    "  --max-profiles N    profile at most N launches (the first N selected)\n"
    "  --aggregate         one profile per kernel (and block shape) for all its\n"
    "                      selected launches, named after the first, written at exit\n"
    "  --ptx FILE          use this PTX instead of the program's fat binaries\n"
    "  --verbose           one line per launch on standard error\n"
    "  --preload           also put the library in LD_PRELOAD (programs with an RPATH)\n";

/* minibench profile -o DIR [options] -- PROGRAM ARGS */
static int profile_program(int argc, char **argv, char **cmd)
{
    const char *prog = "minibench profile";
    const char *output = NULL, *kernel = NULL, *index_s = NULL, *max_s = NULL, *aggregate = NULL,
               *ptx = NULL, *verbose = NULL, *preload = NULL;
    cli_option opts[] = {{"--output", "-o", 1, &output},       {"--kernel", NULL, 1, &kernel},
                         {"--launch-index", NULL, 1, &index_s}, {"--max-profiles", NULL, 1, &max_s},
                         {"--aggregate", NULL, 0, &aggregate},  {"--ptx", NULL, 1, &ptx},
                         {"--verbose", NULL, 0, &verbose},      {"--preload", NULL, 0, &preload}};
    int npos = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), NULL, 0, &npos,
                       profile_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (!output)
        return cli_usage_error(prog, "-o PROFDIR is required");
    uint64_t v = 0;
    if ((index_s && !cli_parse_number(prog, "--launch-index", index_s, 0, UINT64_MAX - 1, &v)) ||
        (max_s && !cli_parse_number(prog, "--max-profiles", max_s, 1, UINT64_MAX - 1, &v)))
        return MB_EXIT_USAGE;
    if (kernel) {
        int code;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)kernel, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
        if (!re) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof(msg));
            return cli_usage_error(prog, "--kernel: bad regular expression at offset %zu: %s",
                                   (size_t)off, (const char *)msg);
        }
        pcre2_code_free(re);
    }
    if (mkdir(output, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create directory %s: %s\n", prog, output, strerror(errno));
        return MB_EXIT_FAIL;
    }
    /* A stale index from an earlier run must not pass for this run's. */
    size_t n = strlen(output) + sizeof("/index.json");
    char *index = malloc(n);
    if (!index)
        return MB_EXIT_FAIL;
    snprintf(index, n, "%s/index.json", output);
    if (remove(index) != 0 && errno != ENOENT) {
        fprintf(stderr, "%s: cannot remove the old %s: %s\n", prog, index, strerror(errno));
        free(index);
        return MB_EXIT_FAIL;
    }
    const char *names[] = {"MINIBENCH_CUDART_MODE",         "MINIBENCH_CUDART_OUTPUT",
                           "MINIBENCH_CUDART_KERNEL",       "MINIBENCH_CUDART_LAUNCH_INDEX",
                           "MINIBENCH_CUDART_MAX_PROFILES", "MINIBENCH_CUDART_AGGREGATE",
                           "MINIBENCH_CUDART_PTX",          "MINIBENCH_CUDART_VERBOSE",
                           "MINIBENCH_CUDART_THREADS"};
    const char *values[] = {"profile", output, kernel, index_s, max_s, aggregate ? "1" : NULL,
                            ptx, verbose ? "1" : NULL, NULL};
    rc = cli_cudart_exec(prog, cmd, names, values, 9, preload != NULL, NULL, 0);
    struct stat sb;
    if (rc == 0 && stat(index, &sb) != 0) {
        fprintf(stderr, "%s: the program made no launch that matches the selection "
                        "(--kernel / --launch-index); nothing was profiled\n", prog);
        rc = MB_EXIT_FAIL;
    }
    free(index);
    return rc;
}

static const char render_help[] =
    "Usage: minibench render FILE.dot [-o OUT.svg]\n"
    "\n"
    "Lays out a DOT graph (a DFSG from 'minibench profile' or a CFG from\n"
    "'minibench ptx cfg') with Graphviz and writes SVG.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT    write to OUT (atomically) instead of standard output\n"
    "  -h, --help          show this help\n";

typedef struct pending_file {
    char *path;
    mb_buf data;
} pending_file;

typedef struct pending {
    pending_file *files;
    size_t n, cap;
} pending;

static int pending_add(pending *p, const char *dir, const char *name, mb_buf *data)
{
    if (MB_GROW(p->files, p->cap, p->n + 1) != MB_OK)
        return 0;
    size_t len = strlen(dir) + strlen(name) + 2;
    pending_file *f = &p->files[p->n];
    f->path = malloc(len);
    if (!f->path)
        return 0;
    snprintf(f->path, len, "%s/%s", dir, name);
    f->data = *data;
    memset(data, 0, sizeof(*data));
    p->n++;
    return 1;
}

static void pending_free(pending *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->files[i].path);
        mb_buf_free(&p->files[i].data);
    }
    free(p->files);
}

/* The launch's input buffers, as files beside its profile, and the warning
 * when they were too large to record. */
static mb_status add_inputs(pending *out, const char *dir, const mb_profile *p, const char *kernel,
                            uint32_t n, json_t *entry, mb_error *err)
{
    json_t *files = json_array();
    json_object_set_new(entry, "inputs", files);
    for (uint32_t k = 0; k < mb_profile_ninputs(p); k++) {
        const mb_profile_input *in = mb_profile_get_input(p, k);
        char name[600];
        mb_buf data = MB_BUF_INIT;
        mb_buf_append(&data, (const char *)in->data, in->bytes);
        if (!mb_profile_input_file(kernel, n, k, name, sizeof(name)) || data.failed ||
            !pending_add(out, dir, name, &data)) {
            mb_buf_free(&data);
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        }
        json_array_append_new(files, json_string(name));
    }
    char warning[700];
    if (mb_profile_inputs_warning(p, kernel, n, warning, sizeof(warning)))
        fprintf(stderr, "warning: %s\n", warning);
    return MB_OK;
}

static int kernel_selected(pcre2_code *re, const char *name)
{
    if (!re)
        return 1;
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    int rc = md ? pcre2_match(re, (PCRE2_SPTR)name, strlen(name), 0, 0, md, NULL) : -1;
    pcre2_match_data_free(md);
    return rc >= 0;
}

int cmd_profile(int argc, char **argv)
{
    int split = cli_cudart_split(argc, argv);
    if (split >= 0)
        return profile_program(split, argv, argv + split + 1);
    const char *prog = "minibench profile";
    const char *launch = NULL, *output = NULL, *kernel = NULL, *index_s = NULL, *banks_s = NULL,
               *bank_bytes_s = NULL, *stack_s = NULL, *threads_s = NULL;
    cli_option opts[] = {{"--launch", NULL, 1, &launch},       {"--output", "-o", 1, &output},
                         {"--kernel", NULL, 1, &kernel},       {"--launch-index", NULL, 1, &index_s},
                         {"--banks", NULL, 1, &banks_s},       {"--bank-bytes", NULL, 1, &bank_bytes_s},
                         {"--stack", NULL, 1, &stack_s},       {"--threads", NULL, 1, &threads_s}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 1, &nfiles,
                       profile_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error(prog, "expected one PTX file");
    if (!launch)
        return cli_usage_error(prog, "--launch L.json is required");
    if (!output)
        return cli_usage_error(prog, "-o PROFDIR is required");
    uint64_t only = UINT32_MAX, stack = 0, banks = 0, bank_bytes = 0, threads = 0;
    if ((index_s && !cli_parse_number(prog, "--launch-index", index_s, 0, 1u << 30, &only)) ||
        (banks_s && !cli_parse_number(prog, "--banks", banks_s, 1, 64, &banks)) ||
        (bank_bytes_s && !cli_parse_number(prog, "--bank-bytes", bank_bytes_s, 1, 64, &bank_bytes)) ||
        (stack_s && !cli_parse_number(prog, "--stack", stack_s, 1, 1u << 20, &stack)) ||
        (threads_s && !cli_parse_number(prog, "--threads", threads_s, 1, 2, &threads)))
        return MB_EXIT_USAGE;
    mb_profile_options popt = {(uint32_t)banks, (uint32_t)bank_bytes, (uint32_t)threads};
    pcre2_code *re = NULL;
    if (kernel) {
        int code;
        PCRE2_SIZE off;
        re = pcre2_compile((PCRE2_SPTR)kernel, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
        if (!re) {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(code, msg, sizeof(msg));
            return cli_usage_error(prog, "--kernel: bad regular expression at offset %zu: %s",
                                   (size_t)off, (const char *)msg);
        }
    }
    mb_error err;
    mb_error_clear(&err);
    mb_module *m = NULL;
    mb_memory *mem = NULL;
    mb_program *program = NULL;
    mb_manifest *manifest = NULL;
    mb_manifest_run *run = NULL;
    pending out;
    memset(&out, 0, sizeof(out));
    mb_status st = mb_ptx_parse_file(files[0], &m, &err);
    if (st == MB_OK)
        st = mb_manifest_load(launch, &manifest, &err);
    if (st == MB_OK)
        st = mb_memory_new(&mem, &err);
    if (st == MB_OK)
        st = mb_program_new(m, mem, &program, &err);
    if (st == MB_OK)
        st = mb_manifest_bind(manifest, program, mem, &run, &err);
    uint32_t n = manifest ? mb_manifest_nlaunches(manifest) : 0;
    if (st == MB_OK && only != UINT32_MAX && only >= n)
        st = mb_error_set(&err, MB_ERR_INVALID, launch, 0, 0,
                          "--launch-index %" PRIu64 ": the manifest has %u launches", only, n);
    json_t *index = json_object(), *list = json_array();
    json_object_set_new(index, "ptx", json_string(files[0]));
    json_object_set_new(index, "manifest", json_string(launch));
    json_object_set_new(index, "launches", list);
    int profiled = 0;
    for (uint32_t i = 0; st == MB_OK && i < n; i++) {
        const mb_launch_config *cfg = mb_manifest_launch(run, i);
        int selected = (only == UINT32_MAX || only == i) && kernel_selected(re, cfg->kernel->name);
        mb_exec_options opt = {1, 0, (uint32_t)stack, NULL};
        mb_exec_stats stats;
        memset(&stats, 0, sizeof(stats));
        mb_profile *p = NULL;
        if (selected) {
            st = mb_profile_new(program, mem, cfg, &popt, &p, &err);
            if (st == MB_OK)
                opt.observer = mb_profile_observer(p);
        }
        if (st == MB_OK)
            st = mb_launch(program, mem, cfg, &opt, &stats, &err);
        if (st == MB_OK && p)
            st = mb_profile_finish(p, &stats, &err);
        if (st == MB_OK && p) {
            mb_buf json = MB_BUF_INIT, dot = MB_BUF_INIT;
            char name[600];
            st = mb_profile_write_json(p, &json, &err);
            if (st == MB_OK)
                st = mb_dfsg_write_dot(m, p, &dot, &err);
            snprintf(name, sizeof(name), "%s.%u.profile.json", cfg->kernel->name, i);
            if (st == MB_OK && !pending_add(&out, output, name, &json))
                st = mb_error_set(&err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            json_t *e = json_object();
            json_object_set_new(e, "index", json_integer(i));
            json_object_set_new(e, "kernel", json_string(cfg->kernel->name));
            json_object_set_new(e, "profile", json_string(name));
            snprintf(name, sizeof(name), "%s.%u.dfsg.dot", cfg->kernel->name, i);
            json_object_set_new(e, "dfsg", json_string(name));
            if (st == MB_OK)
                st = add_inputs(&out, output, p, cfg->kernel->name, i, e, &err);
            json_object_set_new(e, "threads", json_integer((json_int_t)stats.threads));
            json_object_set_new(e, "thread_insts", json_integer((json_int_t)stats.thread_insts));
            json_array_append_new(list, e);
            if (st == MB_OK && !pending_add(&out, output, name, &dot))
                st = mb_error_set(&err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            mb_buf_free(&json);
            mb_buf_free(&dot);
            profiled++;
            if (st == MB_OK)
                fprintf(stderr, "profiled launch %u (%s): %" PRIu64 " threads, %" PRIu64
                                " thread instructions\n",
                        i, cfg->kernel->name, stats.threads, stats.thread_insts);
        }
        mb_profile_free(p);
    }
    if (st == MB_OK && profiled == 0)
        st = mb_error_set(&err, MB_ERR_INVALID, launch, 0, 0,
                          "no launch matches the selection (--kernel / --launch-index)");
    if (st == MB_OK && mkdir(output, 0777) != 0 && errno != EEXIST)
        st = mb_error_set(&err, MB_ERR_IO, output, 0, 0, "cannot create directory: %s", strerror(errno));
    if (st == MB_OK) {
        char *text = json_dumps(index, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        mb_buf b = MB_BUF_INIT;
        if (text) {
            mb_buf_puts(&b, text);
            mb_buf_putc(&b, '\n');
        }
        free(text);
        if (!text || !pending_add(&out, output, "index.json", &b))
            st = mb_error_set(&err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        mb_buf_free(&b);
    }
    for (size_t k = 0; st == MB_OK && k < out.n; k++)
        st = mb_write_file_atomic(out.files[k].path, out.files[k].data.data, out.files[k].data.len, &err);
    if (st != MB_OK)
        cli_print_error(&err);
    json_decref(index);
    pending_free(&out);
    pcre2_code_free(re);
    mb_manifest_run_free(run);
    mb_manifest_free(manifest);
    mb_program_free(program);
    mb_memory_free(mem);
    mb_module_free(m);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}

int cmd_render(int argc, char **argv)
{
    const char *prog = "minibench render";
    const char *output = NULL;
    cli_option opts[] = {{"--output", "-o", 1, &output}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse(prog, argc, argv, opts, 1, files, 1, &nfiles, render_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error(prog, "expected one DOT file");
    mb_error err;
    char *text = NULL;
    size_t len = 0;
    mb_status st = mb_read_file(files[0], 256u << 20, &text, &len, &err);
    mb_buf svg = MB_BUF_INIT;
    if (st == MB_OK)
        st = mb_dot_render_svg(text, len, files[0], &svg, &err);
    if (st == MB_OK)
        st = cli_write_output(output, svg.data, svg.len, &err);
    if (st != MB_OK)
        cli_print_error(&err);
    free(text); /* NULL when the read failed */
    mb_buf_free(&svg);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}
