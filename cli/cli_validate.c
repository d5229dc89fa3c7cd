/* The original of a program's profile: the program again, its launch simulated. */
#define _POSIX_C_SOURCE 200809L
#include "cli_validate.h"
#include "cli.h"
#include "cli_cudart.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_validate_program_free(cli_program_original *p)
{
    for (size_t i = 0; p->cmd && p->cmd[i]; i++)
        free(p->cmd[i]);
    free(p->cmd);
    free(p->directory);
    if (p->stats_path) {
        unlink(p->stats_path);
        free(p->stats_path);
    }
    memset(p, 0, sizeof(*p));
}

static mb_status simulate_program(void *ctx, const char *kernel, uint32_t launch, const char *config,
                                  mb_validate_sample *out, mb_error *err)
{
    cli_program_original *p = ctx;
    char index[32];
    snprintf(index, sizeof(index), "%u", launch);
    const char *names[] = {"MINIBENCH_CUDART_MODE",         "MINIBENCH_CUDART_CONFIG",
                           "MINIBENCH_CUDART_LAUNCH_INDEX", "MINIBENCH_CUDART_FAST_FORWARD",
                           "MINIBENCH_CUDART_STATS_JSON",   "MINIBENCH_CUDART_STATS",
                           "MINIBENCH_CUDART_KERNEL",       "MINIBENCH_CUDART_MAX_PROFILES",
                           "MINIBENCH_CUDART_VERBOSE"};
    const char *values[] = {"sim", config, index, "1", p->stats_path, NULL, NULL, NULL, NULL};
    unlink(p->stats_path);
    int rc = cli_cudart_exec("minibench validate", p->cmd, names, values,
                             (int)(sizeof(names) / sizeof(names[0])), 0, p->directory, 1);
    if (rc != 0)
        return mb_error_set(err, MB_ERR_FAULT, "", 0, 0,
                            "%s exited with status %d while its launch %u was simulated on %s",
                            p->cmd[0], rc, launch, config);
    char *text = NULL;
    size_t len = 0;
    mb_status st = mb_read_file(p->stats_path, 1u << 26, &text, &len, err);
    if (st != MB_OK)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "%s never reached its launch %u (no statistics were written)", p->cmd[0],
                            launch);
    st = mb_validate_sample_from_json(text, len, p->stats_path, kernel, out, err);
    free(text);
    return st;
}

static mb_status index_path(const char *prefix, mb_buf *path, mb_error *err)
{
    const char *slash = strrchr(prefix, '/');
    if (slash)
        mb_buf_append(path, prefix, (size_t)(slash - prefix) + 1);
    mb_buf_puts(path, "index.json");
    return path->failed ? mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory") : MB_OK;
}

static mb_status read_program(json_t *root, const char *where, cli_program_original *p, mb_error *err)
{
    json_t *args = json_object_get(root, "arguments");
    const char *program = json_string_value(json_object_get(root, "program"));
    const char *dir = json_string_value(json_object_get(root, "directory"));
    if (json_is_true(json_object_get(root, "aggregate")))
        return mb_error_set(err, MB_ERR_UNSUPPORTED, where, 0, 0,
                            "an aggregated profile stands for many launches; validate the profile "
                            "of one launch");
    if (!program || !json_is_array(args))
        return mb_error_set(err, MB_ERR_INVALID, where, 0, 0,
                            "index.json names the program but not its \"arguments\"; profile it again");
    size_t n = json_array_size(args);
    p->cmd = calloc(n + 2, sizeof(char *));
    if (!p->cmd || !(p->cmd[0] = strdup(program)))
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_array_get(args, i));
        if (!a)
            return mb_error_set(err, MB_ERR_INVALID, where, 0, 0, "arguments[%zu]: expected a string", i);
        if (!(p->cmd[i + 1] = strdup(a)))
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    }
    if (dir && !(p->directory = strdup(dir)))
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    return MB_OK;
}

mb_status cli_validate_program_setup(const char *prefix, mb_validate_options *o,
                                     cli_program_original *p, mb_error *err)
{
    memset(p, 0, sizeof(*p));
    if (o->ptx)
        return MB_OK;
    mb_buf path = MB_BUF_INIT;
    char *text = NULL;
    size_t len = 0;
    mb_status st = index_path(prefix, &path, err);
    if (st == MB_OK)
        st = mb_read_file(path.data, 1u << 26, &text, &len, err);
    json_t *root = NULL;
    if (st == MB_OK) {
        json_error_t je;
        if (!(root = json_loadb(text, len, 0, &je)))
            st = mb_error_set(err, MB_ERR_PARSE, path.data, je.line, je.column, "%s", je.text);
    }
    if (st == MB_OK && json_object_get(root, "program")) {
        st = read_program(root, path.data, p, err);
        char tmpl[] = "/tmp/minibench-validate-XXXXXX";
        int fd = st == MB_OK ? mkstemp(tmpl) : -1;
        if (st == MB_OK && fd < 0)
            st = mb_error_set(err, MB_ERR_IO, "/tmp", 0, 0, "cannot create a temporary file");
        if (fd >= 0) {
            close(fd);
            if (!(p->stats_path = strdup(tmpl))) {
                unlink(tmpl);
                st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            }
        }
        if (st == MB_OK) {
            o->original = simulate_program;
            o->original_ctx = p;
        }
    }
    json_decref(root);
    free(text);
    mb_buf_free(&path);
    return st;
}
