/* `minibench validate` on a profile of an unmodified program: the original is
 * that program, run again on the runtime library with its launch simulated. */
#ifndef MB_CLI_VALIDATE_H
#define MB_CLI_VALIDATE_H

#include <minibench/validate.h>

typedef struct cli_program_original {
    char **cmd;          /* the program and its arguments, NULL-terminated */
    char *directory;     /* where it ran when profiled */
    char *stats_path;    /* where the runtime library writes the launch's statistics */
} cli_program_original;

/*
 * When PROFDIR/index.json names a program (and no --ptx was given), prepares
 * `o` to simulate the original by running it; otherwise leaves `o` alone.
 * `p` must be freed with cli_validate_program_free() either way.
 */
mb_status cli_validate_program_setup(const char *prefix, mb_validate_options *o,
                                     cli_program_original *p, mb_error *err);
void cli_validate_program_free(cli_program_original *p);

#endif
