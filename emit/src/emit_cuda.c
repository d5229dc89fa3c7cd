/* clone.cu: the clone kernel as CUDA (one asm volatile block) plus a host
 * program that runs it with buffers of the original's sizes. */
#include "emit_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static const char *c_type(const mb_clone_param *p)
{
    if (p->is_pointer)
        return "unsigned char *";
    if (!strcmp(p->type, "f32"))
        return "float ";
    if (!strcmp(p->type, "f64"))
        return "double ";
    if (p->type[0] == 's')
        return p->bytes == 8 ? "long long " : p->bytes == 2 ? "short " : "int ";
    return p->bytes == 8 ? "unsigned long long " : p->bytes == 2 ? "unsigned short " : "unsigned int ";
}

static const char *constraint(const mb_clone_param *p)
{
    if (p->is_pointer || p->bytes == 8)
        return !strcmp(p->type, "f64") ? "d" : "l";
    if (!strcmp(p->type, "f32"))
        return "f";
    return p->bytes == 2 ? "h" : "r";
}

static int param_index(const mb_clone_model *m, const char *name, size_t len)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (strlen(m->params[i].name) == len && !memcmp(m->params[i].name, name, len))
            return (int)i;
    return -1;
}

/* Parameter loads become moves from the asm operands (the parameters are
 * operands first + 0, first + 1, ...). */
static int param_move(const mb_clone_model *m, const mb_clone_insn *x, int first, mb_buf *line)
{
    if (strncmp(x->op, "ld.param.", 9) != 0)
        return 0;
    const char *comma = strchr(x->operands, ','), *lb = strchr(x->operands, '['),
               *rb = strchr(x->operands, ']');
    if (!comma || !lb || !rb || rb < lb)
        return 0;
    int k = param_index(m, lb + 1, (size_t)(rb - lb - 1));
    if (k < 0)
        return 0;
    int bits = atoi(x->op + 10);
    unsigned pbits = m->params[k].bytes * 8;
    if ((unsigned)bits == pbits || (bits == 8 && pbits == 8))
        mb_buf_printf(line, "mov.b%u %.*s, %%%d;", pbits, (int)(comma - x->operands), x->operands,
                      first + k);
    else
        mb_buf_printf(line, "cvt.u%d.u%u %.*s, %%%d;", bits < 16 ? 16 : bits, pbits,
                      (int)(comma - x->operands), x->operands, first + k);
    return 1;
}

/* A called function's result store becomes a move to the output operand %0. */
static int result_move(const mb_clone_insn *x, mb_buf *line)
{
    const char *comma = strchr(x->operands, ',');
    if (strncmp(x->op, "st.param.", 9) != 0 || strncmp(x->operands, "[func_retval0]", 14) != 0 ||
        !comma)
        return 0;
    mb_buf_printf(line, "mov.b%d %%0,%s;", atoi(x->op + 10), comma + 1);
    return 1;
}

static void put_asm_line(mb_buf *out, const char *s, int escape_percent)
{
    mb_buf_puts(out, "        \"");
    for (; *s; s++) {
        if (*s == '%' && escape_percent)
            mb_buf_putc(out, '%');
        if (*s == '"' || *s == '\\')
            mb_buf_putc(out, '\\');
        mb_buf_putc(out, *s);
    }
    mb_buf_puts(out, "\\n\\t\"\n");
}

/* An asm line with one operand reference (%k) left single and every
 * register's % doubled. */
static void put_asm_operand_line(mb_buf *out, const char *s, const char *opnd)
{
    mb_buf esc = MB_BUF_INIT;
    for (const char *q = s; *q; q++) {
        if (*q == '%' && q != opnd)
            mb_buf_putc(&esc, '%');
        mb_buf_putc(&esc, *q);
    }
    put_asm_line(out, esc.data ? esc.data : "", 0);
    mb_buf_free(&esc);
}

/* Every line of `text` (which it cuts at the newlines) as an asm line. */
static void put_asm_lines(mb_buf *out, mb_buf *text)
{
    for (char *line = text->data; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        put_asm_line(out, line, 1);
        line = nl ? nl + 1 : NULL;
    }
}

/* The label a called function's `ret` jumps to: the end of its asm block,
 * so that the C++ function around it returns the result. */
#define FUNC_END_LABEL "$Lc_end"

static void asm_body(const mb_clone_model *m, mb_buf *out, int is_func)
{
    put_asm_line(out, "{", 1);
    mb_buf decls = MB_BUF_INIT;
    emit_ptx_registers(m, &decls, "");
    emit_call_params(m, &decls, "");
    put_asm_lines(out, &decls);
    mb_buf_free(&decls);
    for (size_t i = 0; i < m->narrays && !is_func; i++) {
        const mb_clone_array *a = &m->arrays[i];
        char decl[512];
        /* function-scope shared arrays and local memory live inside the block */
        if (!strcmp(a->space, "local") || (!strcmp(a->space, "shared") && !a->is_extern && a->name[0] == '_')) {
            snprintf(decl, sizeof decl, ".%s .align %s .b8 %s[%" PRIu64 "];", a->space,
                     emit_array_align(a), a->name, a->bytes ? a->bytes : 1);
            put_asm_line(out, decl, 1);
        }
    }
    for (size_t k = 0; k < m->nblocks; k++) {
        const mb_clone_block *b = &m->blocks[k];
        mb_buf line = MB_BUF_INIT;
        mb_buf_printf(&line, "%s:", b->label);
        put_asm_line(out, line.data, 1);
        for (size_t i = 0; i < b->ninsns; i++) {
            const mb_clone_insn *x = &b->insns[i];
            mb_buf_reset(&line);
            mb_buf moved = MB_BUF_INIT;
            /* a function's result operand is %0, its arguments follow */
            if (param_move(m, x, is_func && m->ret_type ? 1 : 0, &moved)) {
                put_asm_operand_line(out, moved.data, strrchr(moved.data, '%'));
            } else if (is_func && result_move(x, &moved)) {
                put_asm_operand_line(out, moved.data, strchr(moved.data, '%'));
            } else if (is_func && !strcmp(x->op, "ret")) {
                mb_buf_printf(&line, "%s%sbra.uni " FUNC_END_LABEL ";", x->guard ? x->guard : "",
                              x->guard ? " " : "");
                put_asm_line(out, line.data, 1);
            } else {
                mb_buf_printf(&line, "%s%s%s%s%s;", x->guard ? x->guard : "", x->guard ? " " : "",
                              x->op, x->operands[0] ? " " : "", x->operands);
                put_asm_line(out, line.data, 1);
            }
            mb_buf_free(&moved);
        }
        mb_buf_free(&line);
    }
    if (is_func)
        put_asm_line(out, FUNC_END_LABEL ":", 1);
    put_asm_line(out, "}", 1);
}

/* A called function as a __device__ function whose body is one asm block:
 * extern "C" keeps its PTX name for the kernel's call, __noinline__ keeps it
 * a .func, and `used` keeps it although only asm calls it (nvcc drops
 * file-scope asm from device code, so the .func cannot be written there). */
static void cuda_funcs(const mb_clone_model *m, mb_buf *out)
{
    for (size_t i = 0; i < m->nfuncs; i++) {
        const mb_clone_model *f = &m->funcs[i];
        mb_clone_param ret;
        memset(&ret, 0, sizeof(ret));
        ret.type = f->ret_type ? f->ret_type : "b32";
        ret.bytes = (uint32_t)atoi(ret.type + 1) / 8;
        mb_buf_printf(out, "// the called function %s of the original, called from the kernel's asm\n", f->kernel);
        mb_buf_printf(out, "extern \"C\" __device__ __noinline__ __attribute__((used)) %s%s(",
                      f->ret_type ? c_type(&ret) : "void ", f->kernel);
        for (size_t k = 0; k < f->nparams; k++)
            mb_buf_printf(out, "%s%sa%zu", k ? ", " : "", c_type(&f->params[k]), k);
        mb_buf_printf(out, "%s)\n{\n", f->nparams ? "" : "void");
        if (f->ret_type)
            mb_buf_printf(out, "    %sr = 0;\n", c_type(&ret));
        mb_buf_puts(out, "    asm volatile(\n");
        asm_body(f, out, 1);
        mb_buf_puts(out, "        : ");
        if (f->ret_type)
            mb_buf_printf(out, "\"+%s\"(r)", constraint(&ret));
        mb_buf_puts(out, "\n        : ");
        for (size_t k = 0; k < f->nparams; k++)
            mb_buf_printf(out, "%s\"%s\"(a%zu)", k ? ", " : "", constraint(&f->params[k]), k);
        mb_buf_puts(out, "\n        : \"memory\");\n");
        mb_buf_puts(out, f->ret_type ? "    return r;\n}\n\n" : "}\n\n");
    }
}

mb_status mb_emit_cuda(const mb_clone_model *m, mb_buf *out, mb_error *err)
{
    emit_vars v;
    memset(&v, 0, sizeof(v));
    mb_buf *arrays = emit_var_buf(&v, "CUDA_ARRAYS");
    for (size_t i = 0; i < m->narrays; i++) {
        const mb_clone_array *a = &m->arrays[i];
        if (a->is_extern)
            mb_buf_printf(arrays, "extern __shared__ __align__(16) unsigned char %s[];\n", a->name);
        else if (!strcmp(a->space, "global"))
            mb_buf_printf(arrays, "__device__ __align__(16) unsigned char %s[%" PRIu64 "];\n",
                          a->name, a->bytes ? a->bytes : 1);
        else if (!strcmp(a->space, "const"))
            mb_buf_printf(arrays, "__constant__ __align__(16) unsigned char %s[%" PRIu64 "];\n",
                          a->name, a->bytes ? a->bytes : 1);
        else if (!strcmp(a->space, "shared") && a->name[0] != '_')
            mb_buf_printf(arrays, "__shared__ __align__(16) unsigned char %s[%" PRIu64 "];\n",
                          a->name, a->bytes ? a->bytes : 1);
    }
    mb_buf *cparams = emit_var_buf(&v, "CUDA_PARAMS");
    mb_buf *operands = emit_var_buf(&v, "ASM_OPERANDS");
    for (size_t i = 0; i < m->nparams; i++) {
        mb_buf_printf(cparams, "%s%sp%zu", i ? ", " : "", c_type(&m->params[i]), i);
        mb_buf_printf(operands, "%s\"%s\"(p%zu)", i ? ", " : "", constraint(&m->params[i]), i);
    }
    if (m->nparams == 0)
        mb_buf_puts(cparams, "void");
    /* module arrays referenced only inside the asm: keep them alive */
    size_t nop = m->nparams;
    for (size_t i = 0; i < m->narrays; i++) {
        const mb_clone_array *a = &m->arrays[i];
        if (a->is_extern || !strcmp(a->space, "global") || !strcmp(a->space, "const") ||
            (!strcmp(a->space, "shared") && a->name[0] != '_'))
            mb_buf_printf(operands, "%s\"l\"(%s)", nop++ ? ", " : "", a->name);
    }
    if (nop == 0)
        mb_buf_puts(operands, "\"r\"(0)");
    cuda_funcs(m, emit_var_buf(&v, "CUDA_FUNCS"));
    asm_body(m, emit_var_buf(&v, "ASM_BODY"), 0);
    mb_buf *reader = emit_var_buf(&v, "INPUT_READER");
    if (m->ninputs)
        mb_buf_puts(reader,
                    "// Reads the original's input file `name` from `dir` into h: exactly `bytes`.\n"
                    "static bool read_input(const char *dir, const char *name, unsigned char *h, size_t bytes)\n"
                    "{\n"
                    "    char path[4096];\n"
                    "    snprintf(path, sizeof path, \"%s/%s\", dir, name);\n"
                    "    FILE *f = fopen(path, \"rb\");\n"
                    "    if (!f) {\n"
                    "        fprintf(stderr, \"%s: cannot open the original's input (pass the clone's directory as the first argument)\\n\", path);\n"
                    "        return false;\n"
                    "    }\n"
                    "    size_t got = fread(h, 1, bytes, f);\n"
                    "    bool more = fgetc(f) != EOF;\n"
                    "    fclose(f);\n"
                    "    if (got != bytes || more) {\n"
                    "        fprintf(stderr, \"%s: expected %zu bytes of input\\n\", path, bytes);\n"
                    "        return false;\n"
                    "    }\n"
                    "    return true;\n"
                    "}\n");
    mb_buf *host = emit_var_buf(&v, "HOST_BUFFERS");
    mb_buf *hfree = emit_var_buf(&v, "HOST_FREE");
    mb_buf *args = emit_var_buf(&v, "LAUNCH_ARGS");
    for (size_t i = 0; i < m->nparams; i++) {
        const mb_clone_param *p = &m->params[i];
        int first = 1;
        for (size_t k = 0; k < i; k++)
            if (m->params[k].is_pointer && p->is_pointer && !strcmp(m->params[k].buffer, p->buffer))
                first = 0;
        if (p->is_pointer && first && p->input) {
            mb_buf_printf(host,
                          "    // buffer '%s' of the original: %" PRIu64 " bytes, its input from %s\n"
                          "    unsigned char *d_%zu = NULL;\n"
                          "    {\n"
                          "        size_t bytes = %" PRIu64 "u;\n"
                          "        unsigned char *h = (unsigned char *)malloc(bytes);\n"
                          "        if (!h) { fprintf(stderr, \"out of host memory\\n\"); return 1; }\n"
                          "        if (!read_input(input_dir, \"%s\", h, bytes)) return 1;\n"
                          "        CHECK(cudaMalloc(&d_%zu, bytes));\n"
                          "        CHECK(cudaMemcpy(d_%zu, h, bytes, cudaMemcpyHostToDevice));\n"
                          "        free(h);\n"
                          "    }\n",
                          p->buffer, p->buffer_bytes, p->input->file, i, p->buffer_bytes, p->input->file,
                          i, i);
            mb_buf_printf(hfree, "    CHECK(cudaFree(d_%zu));\n", i);
        } else if (p->is_pointer && first) {
            mb_buf_printf(host,
                          "    // buffer '%s' of the original: %" PRIu64 " bytes\n"
                          "    unsigned char *d_%zu = NULL;\n"
                          "    {\n"
                          "        size_t bytes = %" PRIu64 "u;\n"
                          "        unsigned char *h = (unsigned char *)malloc(bytes);\n"
                          "        if (!h) { fprintf(stderr, \"out of host memory\\n\"); return 1; }\n"
                          "        for (size_t i = 0; i < bytes; i++)\n"
                          "            h[i] = (unsigned char)((i * 2654435761u) >> 24);\n"
                          "        CHECK(cudaMalloc(&d_%zu, bytes));\n"
                          "        CHECK(cudaMemcpy(d_%zu, h, bytes, cudaMemcpyHostToDevice));\n"
                          "        free(h);\n"
                          "    }\n",
                          p->buffer, p->buffer_bytes, i, p->buffer_bytes, i, i);
            mb_buf_printf(hfree, "    CHECK(cudaFree(d_%zu));\n", i);
        }
        size_t owner = i;
        for (size_t k = 0; k < i && p->is_pointer; k++)
            if (m->params[k].is_pointer && !strcmp(m->params[k].buffer, p->buffer)) {
                owner = k;
                break;
            }
        if (p->is_pointer)
            mb_buf_printf(args, "%sd_%zu + %" PRIu64, i ? ", " : "", owner, p->offset);
        else
            mb_buf_printf(args, "%s(%s)%s", i ? ", " : "", c_type(p), p->value ? p->value : "0");
    }
    char dyn[32];
    snprintf(dyn, sizeof dyn, "%" PRIu64, m->dynamic_shared);
    mb_status st = emit_fill(m, "clone.cu", &v, out, err);
    emit_vars_free(&v);
    return st;
}
