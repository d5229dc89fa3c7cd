/* minibench inspect: kernels, shared arrays, device variables and launch sites of a .cu file. */
#include "cli.h"

#include <minibench/inspect.h>

#include <stdio.h>
#include <string.h>

static const char inspect_help[] =
    "Usage: minibench inspect [--json] [-o OUT] FILE.cu [-- CLANG_ARGS...]\n"
    "\n"
    "Parses a CUDA source file with libclang (no CUDA toolkit needed) and lists:\n"
    "  kernels      every __global__ function (templates too): place, parameters with\n"
    "               their types, __launch_bounds__, the name of its PTX .entry, and the\n"
    "               __shared__ arrays declared in it (element type, dimensions, dynamic)\n"
    "  variables    __constant__, __device__ and file-scope __shared__ variables\n"
    "  launches     every kernel<<<grid, block[, shmem[, stream]]>>>(args) and\n"
    "               cudaLaunchKernel call: the enclosing function, place, and the source\n"
    "               text of each configuration expression and argument\n"
    "Declarations in system headers are left out; the program's own headers are included.\n"
    "\n"
    "Options:\n"
    "  --json            one JSON object (format in docs/cli.md)\n"
    "  -o, --output OUT  write to OUT (atomically) instead of standard output\n"
    "  -h, --help        show this help\n"
    "  -- CLANG_ARGS     passed to clang as they are: -I DIR, -D NAME=VALUE, -std=c++17 ...\n"
    "\n"
    "Exit status: 0 on success, 1 when the file cannot be read or has an error (the\n"
    "first one is reported as file:line:column), 2 on a usage error.\n";

static void print_loc(mb_buf *b, const mb_cuda_loc *loc)
{
    mb_buf_printf(b, "%s:%d:%d", loc->file, loc->line, loc->col);
}

static void print_var(mb_buf *b, const mb_cuda_var *v, const char *indent)
{
    mb_buf_printf(b, "%s%s  __%s__ %s", indent, v->name, mb_cuda_space_name(v->space), v->element_type);
    for (int d = 0; d < v->ndims; d++)
        mb_buf_printf(b, "[%s]", v->dims[d].text);
    if (v->bytes >= 0)
        mb_buf_printf(b, "  %lld bytes", v->bytes);
    if (v->is_dynamic)
        mb_buf_puts(b, "  dynamic (sized at launch)");
    else if (v->is_extern)
        mb_buf_puts(b, "  extern");
    if (v->function && v->kernel < 0)
        mb_buf_printf(b, "  in %s", v->function);
    mb_buf_puts(b, "  at ");
    print_loc(b, &v->loc);
    mb_buf_putc(b, '\n');
}

static void print_kernel(mb_buf *b, const mb_cuda_source *src, const mb_cuda_kernel *k)
{
    mb_buf_printf(b, "kernel %s%s  at ", k->name, k->is_template ? " (template)" : "");
    print_loc(b, &k->loc);
    mb_buf_putc(b, '\n');
    if (k->ptx_name)
        mb_buf_printf(b, "  entry       %s%s\n", k->ptx_name, k->is_extern_c ? "  (extern \"C\")" : "");
    if (!k->is_definition)
        mb_buf_puts(b, "  declared    only (no body in this file)\n");
    if (k->nparams == 0)
        mb_buf_puts(b, "  parameters  none\n");
    for (int i = 0; i < k->nparams; i++) {
        const mb_cuda_param *p = &k->params[i];
        mb_buf_printf(b, "  %-11s %d  %s  %s", i == 0 ? "parameters" : "", i, p->name[0] ? p->name : "(unnamed)",
                      p->type);
        if (p->is_pointer)
            mb_buf_printf(b, "  (pointer to %s)", p->pointee);
        mb_buf_putc(b, '\n');
    }
    if (k->launch_bounds)
        mb_buf_printf(b, "  bounds      __launch_bounds__(%s)\n", k->launch_bounds);
    if (k->nshared == 0)
        mb_buf_puts(b, "  shared      none\n");
    for (int i = 0; i < k->nshared; i++) {
        mb_buf_printf(b, "  %-11s ", i == 0 ? "shared" : "");
        print_var(b, &src->vars[k->shared[i]], "");
    }
    for (int i = 0; i < k->ninstantiations; i++)
        mb_buf_printf(b, "  %-11s %s\n", i == 0 ? "instances" : "", k->instantiations[i]);
}

static void print_launch(mb_buf *b, const mb_cuda_launch *l)
{
    if (l->kind == MB_CUDA_LAUNCH_API) {
        mb_buf_printf(b, "launch %s via cudaLaunchKernel(%s, grid %s, block %s", l->kernel, l->callee,
                      l->config[MB_CUDA_CFG_GRID], l->config[MB_CUDA_CFG_BLOCK]);
        if (l->config[MB_CUDA_CFG_SHMEM])
            mb_buf_printf(b, ", shared %s", l->config[MB_CUDA_CFG_SHMEM]);
        if (l->config[MB_CUDA_CFG_STREAM])
            mb_buf_printf(b, ", stream %s", l->config[MB_CUDA_CFG_STREAM]);
        mb_buf_printf(b, ", args %s)", l->nargs ? l->args[0] : "");
    } else {
        /* Parts written inside a macro's body have no text of their own. */
        mb_buf_printf(b, "launch %s<<<", l->callee[0] ? l->callee : l->kernel);
        for (int i = 0; i < l->nconfig; i++)
            mb_buf_printf(b, "%s%s", i ? ", " : "", l->config[i][0] ? l->config[i] : "?");
        mb_buf_puts(b, ">>>(");
        for (int i = 0; i < l->nargs; i++)
            mb_buf_printf(b, "%s%s", i ? ", " : "", l->args[i][0] ? l->args[i] : "?");
        mb_buf_putc(b, ')');
    }
    mb_buf_printf(b, "\n  in %s at ", l->function ? l->function : "(file scope)");
    print_loc(b, &l->loc);
    if (l->in_macro)
        mb_buf_puts(b, " (inside a macro)");
    if (l->ptx_name)
        mb_buf_printf(b, ", entry %s", l->ptx_name);
    mb_buf_putc(b, '\n');
}

static void print_text(mb_buf *b, const mb_cuda_source *src)
{
    int nglobals = 0;
    for (int i = 0; i < src->nvars; i++)
        nglobals += src->vars[i].kernel < 0 || src->vars[i].space != MB_CUDA_SPACE_SHARED;
    mb_buf_printf(b, "%s: %d kernel%s, %d variable%s outside kernels, %d launch%s\n", src->name, src->nkernels,
                  src->nkernels == 1 ? "" : "s", nglobals, nglobals == 1 ? "" : "s", src->nlaunches,
                  src->nlaunches == 1 ? "" : "es");
    for (int i = 0; i < src->nkernels; i++) {
        mb_buf_putc(b, '\n');
        print_kernel(b, src, &src->kernels[i]);
    }
    if (nglobals)
        mb_buf_putc(b, '\n');
    for (int i = 0; i < src->nvars; i++)
        if (src->vars[i].kernel < 0 || src->vars[i].space != MB_CUDA_SPACE_SHARED)
            print_var(b, &src->vars[i], "variable ");
    if (src->nlaunches)
        mb_buf_putc(b, '\n');
    for (int i = 0; i < src->nlaunches; i++)
        print_launch(b, &src->launches[i]);
}

int cmd_inspect(int argc, char **argv)
{
    const char *prog = "minibench inspect";
    /* Everything after "--" belongs to clang. */
    int own = argc;
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            own = i;
            break;
        }
    int nclang = own < argc ? argc - own - 1 : 0;
    const char *json = NULL, *output = NULL;
    const char *files[1];
    int nfiles = 0;
    cli_option opts[] = {{"--json", NULL, 0, &json}, {"--output", "-o", 1, &output}};
    int rc = cli_parse(prog, own, argv, opts, sizeof(opts) / sizeof(opts[0]), files, 1, &nfiles, inspect_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (nfiles != 1)
        return cli_usage_error(prog, "expected one CUDA source file");
    if (nclang > MB_CUDA_MAX_CLANG_ARGS)
        return cli_usage_error(prog, "at most %d clang arguments after '--', got %d", MB_CUDA_MAX_CLANG_ARGS,
                               nclang);

    mb_error err;
    mb_error_clear(&err);
    mb_cuda_source *src = NULL;
    mb_status st = mb_cuda_inspect_file(files[0], (const char *const *)(argv + own + 1), nclang, &src, &err);
    mb_buf out = MB_BUF_INIT;
    if (st == MB_OK) {
        if (json)
            st = mb_cuda_source_json(src, &out, &err);
        else
            print_text(&out, src);
        if (st == MB_OK && out.failed)
            st = mb_error_set(&err, MB_ERR_NOMEM, files[0], 0, 0, "out of memory");
    }
    if (st == MB_OK)
        st = cli_write_output(output, out.data ? out.data : "", out.len, &err);
    if (st != MB_OK)
        cli_print_error(&err);
    mb_buf_free(&out);
    mb_cuda_source_free(src);
    return st == MB_OK ? MB_EXIT_OK : MB_EXIT_FAIL;
}
