/* Shared pieces of the minibench command line. */
#ifndef MB_CLI_H
#define MB_CLI_H

#include <minibench/util.h>

#include <stdint.h>
#include <stdio.h>

/* Exit codes: documented in docs/cli.md. */
enum { MB_EXIT_OK = 0, MB_EXIT_FAIL = 1, MB_EXIT_USAGE = 2 };

/* A parsed command line: positional arguments and options. */
typedef struct cli_args {
    const char *prog;    /* "minibench ptx cfg", for messages */
    int argc;
    char **argv;
    int pos;             /* next argument to read */
} cli_args;

/* Option table entry: `name` is "--kernel" or "-o"; `takes_value` for options with a value. */
typedef struct cli_option {
    const char *long_name;
    const char *short_name;
    int takes_value;
    const char **value; /* receives the value (or "1" for flags) */
} cli_option;

/*
 * Parses argv into options and positional arguments. Positionals are
 * collected into `positional` (capacity `max_positional`), `--` ends options.
 * Returns 0 on success; prints a usage error and returns MB_EXIT_USAGE on an
 * unknown option, a missing value or too many positionals; returns -1 when
 * --help was given (after printing `help`).
 */
int cli_parse(const char *prog, int argc, char **argv, const cli_option *options, size_t noptions,
              const char **positional, int max_positional, int *npositional, const char *help);

/* Prints an error record as "minibench: file:line:col: error: message". */
void cli_print_error(const mb_error *err);
/* Prints "PROG: message" and a hint to use --help; returns MB_EXIT_USAGE. */
int cli_usage_error(const char *prog, const char *fmt, ...) MB_PRINTF(2, 3);

/* Parses a decimal option value in [min, max]; prints a usage error naming
 * the option and returns 0 otherwise. */
int cli_parse_number(const char *prog, const char *opt, const char *text, uint64_t min,
                     uint64_t max, uint64_t *out);

/* Writes `len` bytes to `path` atomically, or to stdout when path is NULL or "-". */
mb_status cli_write_output(const char *path, const char *data, size_t len, mb_error *err);

/* Sub-commands: int cmd_<name>(int argc, char **argv), argv past the command name. */
#define MB_COMMAND(name, function, synopsis, summary) int function(int argc, char **argv);
#include "commands.def"
#undef MB_COMMAND

#endif
