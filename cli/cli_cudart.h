/* Running an unmodified CUDA program on minibench's runtime library (the `--` modes). */
#ifndef MB_CLI_CUDART_H
#define MB_CLI_CUDART_H

/* Index of the first "--" in argv, or -1. */
int cli_cudart_split(int argc, char **argv);

/*
 * Runs `cmd` (argv of the program, NULL-terminated) with minibench's
 * libcudart.so.13 found next to the minibench binary (or in
 * $MINIBENCH_CUDART_LIB) put first in LD_LIBRARY_PATH (also in LD_PRELOAD
 * when `preload`), after setting each `names[i]=values[i]` (NULL values are
 * removed from the environment), in `directory` (NULL: the current one),
 * with its standard output discarded when `quiet`. Returns the program's
 * exit status (128 + signal when a signal ended it), or MB_EXIT_FAIL after
 * printing why it could not start.
 */
int cli_cudart_exec(const char *prog, char **cmd, const char *const *names,
                    const char *const *values, int nvars, int preload, const char *directory,
                    int quiet);

/* minibench sim [options] -- PROGRAM ARGS (argv: the options before "--"). */
int cli_cudart_sim(int argc, char **argv, char **cmd);

#endif
