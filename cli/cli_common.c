/* Option parsing, error printing and output for the sub-commands. */
#include "cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_print_error(const mb_error *err)
{
    char buf[2048];
    mb_error_format(err, buf, sizeof(buf));
    fprintf(stderr, "minibench: %s\n", buf);
}

int cli_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
    return MB_EXIT_USAGE;
}

static const cli_option *find_option(const cli_option *options, size_t n, const char *arg,
                                     size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const char *names[2] = {options[i].long_name, options[i].short_name};
        for (int k = 0; k < 2; k++)
            if (names[k] && strlen(names[k]) == len && strncmp(names[k], arg, len) == 0)
                return &options[i];
    }
    return NULL;
}

int cli_parse(const char *prog, int argc, char **argv, const cli_option *options, size_t noptions,
              const char **positional, int max_positional, int *npositional, const char *help)
{
    *npositional = 0;
    int only_positional = 0;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!only_positional && strcmp(arg, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (!only_positional && (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)) {
            fputs(help, stdout);
            return -1;
        }
        if (!only_positional && arg[0] == '-' && arg[1] != '\0') {
            const char *eq = strchr(arg, '=');
            size_t len = eq && arg[1] == '-' ? (size_t)(eq - arg) : strlen(arg);
            const cli_option *opt = find_option(options, noptions, arg, len);
            if (!opt)
                return cli_usage_error(prog, "unknown option '%.*s'", (int)len, arg);
            if (!opt->takes_value) {
                if (eq && arg[1] == '-')
                    return cli_usage_error(prog, "option '%.*s' takes no value", (int)len, arg);
                *opt->value = "1";
                continue;
            }
            if (eq && arg[1] == '-') {
                *opt->value = eq + 1;
            } else {
                if (i + 1 >= argc)
                    return cli_usage_error(prog, "option '%s' needs a value", arg);
                *opt->value = argv[++i];
            }
            continue;
        }
        if (*npositional >= max_positional)
            return cli_usage_error(prog, "unexpected argument '%s'", arg);
        positional[(*npositional)++] = arg;
    }
    return 0;
}

mb_status cli_write_output(const char *path, const char *data, size_t len, mb_error *err)
{
    if (!path || strcmp(path, "-") == 0) {
        if (len && fwrite(data, 1, len, stdout) != len)
            return mb_error_set(err, MB_ERR_IO, "<stdout>", 0, 0, "write failed");
        return fflush(stdout) == 0 ? MB_OK
                                   : mb_error_set(err, MB_ERR_IO, "<stdout>", 0, 0, "write failed");
    }
    return mb_write_file_atomic(path, data, len, err);
}

int cli_parse_number(const char *prog, const char *opt, const char *text, uint64_t min,
                     uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < min || v > max) {
        cli_usage_error(prog, "%s needs a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'",
                        opt, min, max, text);
        return 0;
    }
    *out = v;
    return 1;
}
