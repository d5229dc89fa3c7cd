/* minibench ptx: check, print and draw PTX files. */
#include "cli.h"

#include <minibench/dfsg.h>
#include <minibench/profiler.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char ptx_help[] =
    "Usage: minibench ptx <check|print|cfg> [options] FILE...\n"
    "\n"
    "  check FILE...     parse each file and summarise every kernel and function:\n"
    "                    parameters, registers, shared/local/const bytes, basic blocks, loops\n"
    "  print FILE        print the module as canonical PTX\n"
    "  cfg FILE          write a function's control-flow graph as DOT (or SVG)\n"
    "\n"
    "Run 'minibench ptx <command> --help' for the options of each command.\n";

static const char check_help[] =
    "Usage: minibench ptx check [--json] FILE...\n"
    "\n"
    "Parses each PTX file and prints, for every kernel (.entry) and function (.func):\n"
    "parameters, declared registers, static shared, local and constant memory (including\n"
    "what called functions and referenced module variables add), instructions, basic\n"
    "blocks and natural loops with their MiniBench pattern (self, normal, nested).\n"
    "\n"
    "Options:\n"
    "  --json        one JSON document with an entry per file\n"
    "  -h, --help    show this help\n"
    "\n"
    "Exit status: 0 if every file parsed, 1 if any did not (its error names\n"
    "file:line:column), 2 on a usage error.\n";

static const char print_help[] =
    "Usage: minibench ptx print [-o OUT] FILE\n"
    "\n"
    "Prints the module as canonical PTX: re-parsing the output gives the same module.\n"
    "\n"
    "Options:\n"
    "  -o, --output OUT  write to OUT (atomically) instead of standard output\n"
    "  -h, --help        show this help\n";

static const char cfg_help[] =
    "Usage: minibench ptx cfg [--kernel NAME] [--svg] [-o OUT] FILE\n"
    "\n"
    "Writes the control-flow graph of one kernel or function as Graphviz DOT: a node per\n"
    "basic block with its PTX lines, dominator and post-dominator; back edges in bold red;\n"
    "each natural loop as a dashed cluster labelled with its kind (self, normal, nested).\n"
    "\n"
    "Options:\n"
    "  --kernel NAME     the kernel or function to draw (needed when the file has several)\n"
    "  --svg             render SVG through Graphviz instead of writing DOT\n"
    "  -o, --output OUT  write to OUT (atomically) instead of standard output\n"
    "  -h, --help        show this help\n";

/* -------------------------------------------------------------- check */

static const char *param_kind(const mb_param *p, char *buf, size_t size)
{
    if (p->is_ptr)
        snprintf(buf, size, ".%s .ptr%s", mb_type_name(p->type), mb_space_name(p->ptr_space));
    else if (p->ndims)
        snprintf(buf, size, ".%s[%llu]", mb_type_name(p->type), (unsigned long long)p->dims[0]);
    else
        snprintf(buf, size, ".%s", mb_type_name(p->type));
    return buf;
}

static json_t *function_json(const mb_function *fn, const mb_cfg *cfg, const mb_resources *res)
{
    json_t *j = json_object();
    json_object_set_new(j, "name", json_string(fn->name));
    json_object_set_new(j, "kind", json_string(fn->is_entry ? "kernel" : "function"));
    json_t *params = json_array();
    for (uint32_t i = 0; i < fn->nparams; i++) {
        const mb_param *p = &fn->params[i];
        json_t *jp = json_object();
        json_object_set_new(jp, "name", json_string(p->name));
        json_object_set_new(jp, "type", json_string(mb_type_name(p->type)));
        json_object_set_new(jp, "bytes", json_integer((json_int_t)p->size));
        if (p->is_ptr)
            json_object_set_new(jp, "pointer_space", json_string(mb_space_name(p->ptr_space)));
        json_array_append_new(params, jp);
    }
    json_object_set_new(j, "parameters", params);
    json_object_set_new(j, "parameter_bytes", json_integer((json_int_t)res->param_bytes));
    json_t *regs = json_object();
    json_object_set_new(regs, "total", json_integer(res->nregs));
    json_object_set_new(regs, "pred", json_integer(res->regs_by_size[0]));
    json_object_set_new(regs, "b16", json_integer(res->regs_by_size[1]));
    json_object_set_new(regs, "b32", json_integer(res->regs_by_size[2]));
    json_object_set_new(regs, "b64", json_integer(res->regs_by_size[3]));
    json_object_set_new(regs, "b128", json_integer(res->regs_by_size[4]));
    json_object_set_new(j, "registers", regs);
    json_object_set_new(j, "shared_bytes", json_integer((json_int_t)res->shared_bytes));
    json_object_set_new(j, "dynamic_shared", json_boolean(res->dynamic_shared));
    json_object_set_new(j, "local_bytes", json_integer((json_int_t)res->local_bytes));
    json_object_set_new(j, "const_bytes", json_integer((json_int_t)res->const_bytes));
    json_object_set_new(j, "callees", json_integer(res->ncallees));
    json_object_set_new(j, "indirect_calls", json_boolean(res->has_indirect_calls));
    json_object_set_new(j, "instructions", json_integer(fn->ninsns));
    json_object_set_new(j, "basic_blocks", json_integer(cfg->nblocks));
    json_t *loops = json_array();
    for (int l = 0; l < cfg->loops.nloops; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        char name[32];
        json_t *jl = json_object();
        json_object_set_new(jl, "header", json_string(mb_cfg_block_name(cfg, loop->header, name, sizeof(name))));
        json_object_set_new(jl, "kind", json_string(mb_loop_kind_name(loop->kind)));
        json_object_set_new(jl, "depth", json_integer(loop->depth));
        json_object_set_new(jl, "blocks", json_integer(loop->nblocks));
        json_t *latches = json_array();
        for (int k = 0; k < loop->nlatches; k++)
            json_array_append_new(latches, json_string(mb_cfg_block_name(cfg, loop->latches[k], name, sizeof(name))));
        json_object_set_new(jl, "jump_points", latches);
        json_object_set_new(jl, "parent", json_integer(loop->parent));
        json_array_append_new(loops, jl);
    }
    json_object_set_new(j, "loops", loops);
    return j;
}

static void function_text(const mb_function *fn, const mb_cfg *cfg, const mb_resources *res)
{
    char kind[64];
    printf("  %s %s\n", fn->is_entry ? "kernel" : "function", fn->name);
    printf("    parameters     %u (%llu bytes)", fn->nparams, (unsigned long long)res->param_bytes);
    for (uint32_t i = 0; i < fn->nparams; i++)
        printf("%s%s", i ? ", " : ": ", param_kind(&fn->params[i], kind, sizeof(kind)));
    printf("\n    registers      %u (%u predicate, %u 16-bit, %u 32-bit, %u 64-bit, %u 128-bit)\n",
           res->nregs, res->regs_by_size[0], res->regs_by_size[1], res->regs_by_size[2],
           res->regs_by_size[3], res->regs_by_size[4]);
    printf("    shared memory  %llu bytes static%s\n", (unsigned long long)res->shared_bytes,
           res->dynamic_shared ? " + dynamic (extern) array" : "");
    printf("    local memory   %llu bytes\n", (unsigned long long)res->local_bytes);
    printf("    const memory   %llu bytes\n", (unsigned long long)res->const_bytes);
    if (res->ncallees || res->has_indirect_calls)
        printf("    calls          %u function%s%s\n", res->ncallees, res->ncallees == 1 ? "" : "s",
               res->has_indirect_calls ? ", indirect calls" : "");
    printf("    instructions   %u in %d basic block%s\n", fn->ninsns, cfg->nblocks,
           cfg->nblocks == 1 ? "" : "s");
    if (cfg->loops.nloops == 0)
        printf("    loops          none\n");
    for (int l = 0; l < cfg->loops.nloops; l++) {
        const mb_loop *loop = &cfg->loops.loops[l];
        char h[32], j[32];
        printf("    %-14s %s loop at %s, depth %d, %d block%s, jump point %s\n",
               l == 0 ? "loops" : "", mb_loop_kind_name(loop->kind),
               mb_cfg_block_name(cfg, loop->header, h, sizeof(h)), loop->depth, loop->nblocks,
               loop->nblocks == 1 ? "" : "s", mb_cfg_block_name(cfg, loop->latches[0], j, sizeof(j)));
    }
    if (cfg->loops.nirreducible)
        printf("    warning        %d irreducible edge%s: not a natural loop\n",
               cfg->loops.nirreducible, cfg->loops.nirreducible == 1 ? "" : "s");
}

static int check_file(const char *path, json_t *out)
{
    mb_error err;
    mb_module *m;
    if (mb_ptx_parse_file(path, &m, &err) != MB_OK) {
        cli_print_error(&err);
        if (out) {
            json_t *j = json_object();
            char buf[2048];
            mb_error_format(&err, buf, sizeof(buf));
            json_object_set_new(j, "file", json_string(path));
            json_object_set_new(j, "error", json_string(buf));
            json_array_append_new(out, j);
        }
        return MB_EXIT_FAIL;
    }
    json_t *jfile = NULL, *jfuncs = NULL;
    if (out) {
        jfile = json_object();
        char version[16];
        snprintf(version, sizeof(version), "%u.%u", m->version_major, m->version_minor);
        json_object_set_new(jfile, "file", json_string(path));
        json_object_set_new(jfile, "version", json_string(version));
        json_t *targets = json_array();
        for (uint32_t i = 0; i < m->ntargets; i++)
            json_array_append_new(targets, json_string(m->targets[i]));
        json_object_set_new(jfile, "targets", targets);
        json_object_set_new(jfile, "address_size", json_integer(m->address_size));
        jfuncs = json_array();
        json_object_set_new(jfile, "functions", jfuncs);
        json_array_append_new(out, jfile);
    } else {
        printf("%s: PTX ISA %u.%u, target", path, m->version_major, m->version_minor);
        for (uint32_t i = 0; i < m->ntargets; i++)
            printf("%s%s", i ? ", " : " ", m->targets[i]);
        if (m->address_size)
            printf(", %u-bit addresses", m->address_size);
        printf("\n");
    }
    int rc = MB_EXIT_OK;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < m->nfuncs; i++) {
            const mb_function *fn = &m->funcs[i];
            if (!fn->has_body || fn->is_entry != (pass == 0))
                continue;
            mb_cfg cfg;
            mb_resources res;
            if (mb_cfg_build(fn, &cfg, &err) != MB_OK ||
                mb_function_resources(m, fn, &res, &err) != MB_OK) {
                if (!err.file[0])
                    snprintf(err.file, sizeof(err.file), "%s", path);
                cli_print_error(&err);
                mb_cfg_free(&cfg);
                rc = MB_EXIT_FAIL;
                continue;
            }
            if (jfuncs)
                json_array_append_new(jfuncs, function_json(fn, &cfg, &res));
            else
                function_text(fn, &cfg, &res);
            mb_cfg_free(&cfg);
        }
    }
    mb_module_free(m);
    return rc;
}

static int ptx_check(int argc, char **argv)
{
    const char *json = NULL;
    cli_option opts[] = {{"--json", NULL, 0, &json}};
    const char **files = calloc((size_t)argc + 1, sizeof(char *));
    int nfiles = 0;
    if (!files)
        return MB_EXIT_FAIL;
    int rc = cli_parse("minibench ptx check", argc, argv, opts, 1, files, argc, &nfiles, check_help);
    if (rc != 0) {
        free(files);
        return rc < 0 ? MB_EXIT_OK : rc;
    }
    if (nfiles == 0) {
        free(files);
        return cli_usage_error("minibench ptx check", "no PTX file given");
    }
    json_t *out = json ? json_array() : NULL;
    for (int i = 0; i < nfiles; i++)
        if (check_file(files[i], out) != MB_EXIT_OK)
            rc = MB_EXIT_FAIL;
    if (out) {
        char *text = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        if (text)
            printf("%s\n", text);
        free(text);
        json_decref(out);
    }
    free(files);
    return rc;
}

/* -------------------------------------------------------------- print */

static int ptx_print(int argc, char **argv)
{
    const char *output = NULL;
    cli_option opts[] = {{"--output", "-o", 1, &output}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse("minibench ptx print", argc, argv, opts, 1, files, 1, &nfiles, print_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error("minibench ptx print", "expected one PTX file");
    mb_error err;
    mb_module *m;
    if (mb_ptx_parse_file(files[0], &m, &err) != MB_OK) {
        cli_print_error(&err);
        return MB_EXIT_FAIL;
    }
    mb_buf text = MB_BUF_INIT;
    mb_status st = mb_ptx_print(m, &text, &err);
    if (st == MB_OK)
        st = cli_write_output(output, text.data, text.len, &err);
    if (st != MB_OK)
        cli_print_error(&err);
    mb_buf_free(&text);
    mb_module_free(m);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}

/* ---------------------------------------------------------------- cfg */

static const mb_function *pick_function(const mb_module *m, const char *name, const char *path)
{
    if (name) {
        const mb_function *fn = mb_module_find_function(m, name);
        if (!fn || !fn->has_body) {
            fprintf(stderr, "minibench: %s: no kernel or function with a body named '%s'; it has:",
                    path, name);
            for (uint32_t i = 0; i < m->nfuncs; i++)
                if (m->funcs[i].has_body)
                    fprintf(stderr, " %s", m->funcs[i].name);
            fprintf(stderr, "\n");
            return NULL;
        }
        return fn;
    }
    const mb_function *found = NULL;
    int kernels = 0;
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].has_body) {
            found = &m->funcs[i];
            kernels++;
        }
    if (kernels == 1)
        return found;
    if (kernels == 0) {
        fprintf(stderr, "minibench: %s: the module has no kernel; name a function with --kernel\n",
                path);
        return NULL;
    }
    fprintf(stderr, "minibench: %s: the module has %d kernels; choose one with --kernel:", path,
            kernels);
    for (uint32_t i = 0; i < m->nfuncs; i++)
        if (m->funcs[i].is_entry && m->funcs[i].has_body)
            fprintf(stderr, " %s", m->funcs[i].name);
    fprintf(stderr, "\n");
    return NULL;
}

static int ptx_cfg(int argc, char **argv)
{
    const char *output = NULL, *kernel = NULL, *svg = NULL;
    cli_option opts[] = {{"--output", "-o", 1, &output}, {"--kernel", NULL, 1, &kernel},
                         {"--svg", NULL, 0, &svg}};
    const char *files[1];
    int nfiles = 0;
    int rc = cli_parse("minibench ptx cfg", argc, argv, opts, 3, files, 1, &nfiles, cfg_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error("minibench ptx cfg", "expected one PTX file");
    mb_error err;
    mb_module *m;
    if (mb_ptx_parse_file(files[0], &m, &err) != MB_OK) {
        cli_print_error(&err);
        return MB_EXIT_FAIL;
    }
    const mb_function *fn = pick_function(m, kernel, files[0]);
    if (!fn) {
        mb_module_free(m);
        return MB_EXIT_FAIL;
    }
    mb_cfg cfg;
    mb_buf dot = MB_BUF_INIT, rendered = MB_BUF_INIT;
    mb_status st = mb_cfg_build(fn, &cfg, &err);
    if (st == MB_OK)
        st = mb_cfg_write_dot(m, &cfg, &dot, &err);
    if (st == MB_OK && svg)
        st = mb_dot_render_svg(dot.data, dot.len, fn->name, &rendered, &err);
    if (st == MB_OK) {
        const mb_buf *result = svg ? &rendered : &dot;
        st = cli_write_output(output, result->data, result->len, &err);
    }
    if (st != MB_OK)
        cli_print_error(&err);
    mb_cfg_free(&cfg);
    mb_buf_free(&dot);
    mb_buf_free(&rendered);
    mb_module_free(m);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}

int cmd_ptx(int argc, char **argv)
{
    if (argc < 1) {
        fputs(ptx_help, stderr);
        return MB_EXIT_USAGE;
    }
    const char *sub = argv[0];
    if (strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        fputs(ptx_help, stdout);
        return MB_EXIT_OK;
    }
    if (strcmp(sub, "check") == 0)
        return ptx_check(argc - 1, argv + 1);
    if (strcmp(sub, "print") == 0)
        return ptx_print(argc - 1, argv + 1);
    if (strcmp(sub, "cfg") == 0)
        return ptx_cfg(argc - 1, argv + 1);
    return cli_usage_error("minibench ptx", "unknown command '%s' (expected check, print or cfg)",
                           sub);
}
