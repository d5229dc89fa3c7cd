/* The inspection result as JSON (format in docs/cli.md, `minibench inspect`). */
#include "cuda_inspect.h"

#include <jansson.h>
#include <stdlib.h>

/* jansson reports allocation failures as NULL; a NULL anywhere poisons the result. */
typedef struct json_builder {
    int failed;
} json_builder;

static json_t *checked(json_builder *b, json_t *value)
{
    if (!value)
        b->failed = 1;
    return value;
}

static void set(json_builder *b, json_t *obj, const char *key, json_t *value)
{
    if (!obj || !value || json_object_set_new(obj, key, value) != 0)
        b->failed = 1;
}

static void append(json_builder *b, json_t *arr, json_t *value)
{
    if (!arr || !value || json_array_append_new(arr, value) != 0)
        b->failed = 1;
}

static json_t *string_or_null(json_builder *b, const char *s)
{
    return s ? checked(b, json_string(s)) : json_null();
}

static json_t *number_or_null(json_builder *b, long long v)
{
    return v >= 0 ? checked(b, json_integer((json_int_t)v)) : json_null();
}

static json_t *location_json(json_builder *b, const mb_cuda_loc *loc)
{
    json_t *j = checked(b, json_object());
    set(b, j, "file", checked(b, json_string(loc->file ? loc->file : "")));
    set(b, j, "line", checked(b, json_integer(loc->line)));
    set(b, j, "column", checked(b, json_integer(loc->col)));
    return j;
}

static json_t *var_json(json_builder *b, const mb_cuda_var *v)
{
    json_t *j = checked(b, json_object());
    set(b, j, "name", checked(b, json_string(v->name)));
    set(b, j, "space", checked(b, json_string(mb_cuda_space_name(v->space))));
    set(b, j, "type", checked(b, json_string(v->type)));
    set(b, j, "element_type", checked(b, json_string(v->element_type)));
    json_t *dims = checked(b, json_array());
    for (int d = 0; d < v->ndims; d++) {
        json_t *jd = checked(b, json_object());
        set(b, jd, "text", checked(b, json_string(v->dims[d].text)));
        set(b, jd, "value", number_or_null(b, v->dims[d].value));
        append(b, dims, jd);
    }
    set(b, j, "dimensions", dims);
    set(b, j, "bytes", number_or_null(b, v->bytes));
    set(b, j, "extern", json_boolean(v->is_extern));
    set(b, j, "dynamic", json_boolean(v->is_dynamic));
    set(b, j, "function", string_or_null(b, v->function));
    set(b, j, "location", location_json(b, &v->loc));
    return j;
}

static json_t *kernel_json(json_builder *b, const mb_cuda_source *src, const mb_cuda_kernel *k)
{
    json_t *j = checked(b, json_object());
    set(b, j, "name", checked(b, json_string(k->name)));
    set(b, j, "ptx_name", string_or_null(b, k->ptx_name));
    set(b, j, "location", location_json(b, &k->loc));
    set(b, j, "defined", json_boolean(k->is_definition));
    set(b, j, "template", json_boolean(k->is_template));
    set(b, j, "extern_c", json_boolean(k->is_extern_c));
    json_t *params = checked(b, json_array());
    for (int i = 0; i < k->nparams; i++) {
        const mb_cuda_param *p = &k->params[i];
        json_t *jp = checked(b, json_object());
        set(b, jp, "name", checked(b, json_string(p->name)));
        set(b, jp, "type", checked(b, json_string(p->type)));
        set(b, jp, "pointer", json_boolean(p->is_pointer));
        set(b, jp, "pointee", string_or_null(b, p->pointee));
        append(b, params, jp);
    }
    set(b, j, "parameters", params);
    json_t *bounds = json_null();
    if (k->launch_bounds) {
        bounds = checked(b, json_object());
        set(b, bounds, "text", checked(b, json_string(k->launch_bounds)));
        set(b, bounds, "max_threads", number_or_null(b, k->max_threads));
        set(b, bounds, "min_blocks", number_or_null(b, k->min_blocks));
    }
    set(b, j, "launch_bounds", bounds);
    json_t *shared = checked(b, json_array());
    for (int i = 0; i < k->nshared; i++)
        append(b, shared, var_json(b, &src->vars[k->shared[i]]));
    set(b, j, "shared", shared);
    json_t *inst = checked(b, json_array());
    for (int i = 0; i < k->ninstantiations; i++)
        append(b, inst, checked(b, json_string(k->instantiations[i])));
    set(b, j, "instantiations", inst);
    return j;
}

static json_t *launch_json(json_builder *b, const mb_cuda_launch *l)
{
    static const char *const config_keys[MB_CUDA_CFG_COUNT] = {"grid", "block", "shared_bytes", "stream"};
    json_t *j = checked(b, json_object());
    set(b, j, "kernel", checked(b, json_string(l->kernel ? l->kernel : "")));
    set(b, j, "callee", checked(b, json_string(l->callee ? l->callee : "")));
    set(b, j, "ptx_name", string_or_null(b, l->ptx_name));
    set(b, j, "form", checked(b, json_string(l->kind == MB_CUDA_LAUNCH_API ? "cudaLaunchKernel" : "<<<>>>")));
    set(b, j, "function", string_or_null(b, l->function));
    set(b, j, "location", location_json(b, &l->loc));
    for (int i = 0; i < MB_CUDA_CFG_COUNT; i++)
        set(b, j, config_keys[i], string_or_null(b, l->config[i]));
    json_t *args = checked(b, json_array());
    for (int i = 0; i < l->nargs; i++)
        append(b, args, checked(b, json_string(l->args[i])));
    set(b, j, "arguments", args);
    set(b, j, "in_macro", json_boolean(l->in_macro));
    return j;
}

mb_status mb_cuda_source_json(const mb_cuda_source *src, mb_buf *out, mb_error *err)
{
    json_builder b = {0};
    json_t *root = checked(&b, json_object());
    set(&b, root, "file", checked(&b, json_string(src->name ? src->name : "")));
    json_t *kernels = checked(&b, json_array());
    for (int i = 0; i < src->nkernels; i++)
        append(&b, kernels, kernel_json(&b, src, &src->kernels[i]));
    set(&b, root, "kernels", kernels);
    /* Kernel-local shared arrays are listed with their kernel; everything else here. */
    json_t *vars = checked(&b, json_array());
    for (int i = 0; i < src->nvars; i++)
        if (src->vars[i].kernel < 0 || src->vars[i].space != MB_CUDA_SPACE_SHARED)
            append(&b, vars, var_json(&b, &src->vars[i]));
    set(&b, root, "variables", vars);
    json_t *launches = checked(&b, json_array());
    for (int i = 0; i < src->nlaunches; i++)
        append(&b, launches, launch_json(&b, &src->launches[i]));
    set(&b, root, "launches", launches);
    char *text = b.failed ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!text)
        return mb_error_set(err, MB_ERR_NOMEM, src->name, 0, 0, "out of memory writing JSON");
    size_t before = out->len;
    mb_buf_puts(out, text);
    mb_buf_putc(out, '\n');
    free(text);
    if (out->failed) {
        out->len = before;
        return mb_error_set(err, MB_ERR_NOMEM, src->name, 0, 0, "out of memory writing JSON");
    }
    return MB_OK;
}
