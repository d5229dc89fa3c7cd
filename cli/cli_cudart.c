/* The `--` modes: exec a CUDA program with minibench's libcudart.so.13. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_cudart.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIBNAME "libcudart.so.13"

int cli_cudart_split(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return i;
    return -1;
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The directory holding our libcudart.so.13: $MINIBENCH_CUDART_LIB, the
 * build tree (<bindir>/lib) or an installation (<bindir>/../lib/minibench). */
static int find_library_dir(char *dir, size_t size)
{
    char path[PATH_MAX + 64];
    const char *env = getenv("MINIBENCH_CUDART_LIB");
    if (env && env[0]) {
        snprintf(path, sizeof(path), "%s/" LIBNAME, env);
        if (!is_file(path))
            return 0;
        int n = snprintf(dir, size, "%s", env);
        return n > 0 && (size_t)n < size;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 0;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    const char *rel[] = {"lib", "../lib/minibench"};
    for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s/" LIBNAME, self, rel[i]);
        if (is_file(path)) {
            int n = snprintf(dir, size, "%s/%s", self, rel[i]);
            return n > 0 && (size_t)n < size;
        }
    }
    return 0;
}

/* Whether the file names libcudart.so.13 at all: a program linked with the
 * static runtime (nvcc's default) never loads ours. */
static int mentions_shared_runtime(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 1; /* let exec report what is wrong */
    char buf[65536 + 16];
    size_t keep = 0, n;
    int found = 0;
    const size_t len = strlen(LIBNAME);
    while (!found && (n = fread(buf + keep, 1, sizeof(buf) - 16 - keep, f)) > 0) {
        size_t total = keep + n;
        for (size_t i = 0; i + len <= total && !found; i++)
            found = memcmp(buf + i, LIBNAME, len) == 0;
        keep = total < len ? total : len - 1;
        memmove(buf, buf + total - keep, keep);
    }
    fclose(f);
    return found;
}

/* The program's path as exec would find it, for the check above. */
static int resolve_program(const char *name, char *out, size_t size)
{
    if (strchr(name, '/')) {
        snprintf(out, size, "%s", name);
        return is_file(out);
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        snprintf(out, size, "%.*s/%s", (int)len, path, name);
        if (is_file(out))
            return 1;
        path = colon ? colon + 1 : NULL;
    }
    return 0;
}

int cli_cudart_exec(const char *prog, char **cmd, const char *const *names,
                    const char *const *values, int nvars, int preload, const char *directory,
                    int quiet)
{
    if (!cmd[0])
        return cli_usage_error(prog, "expected a program after '--'");
    char dir[PATH_MAX];
    if (!find_library_dir(dir, sizeof(dir))) {
        fprintf(stderr, "%s: cannot find minibench's " LIBNAME " (looked in $MINIBENCH_CUDART_LIB, "
                        "<minibench dir>/lib and <minibench dir>/../lib/minibench)\n", prog);
        return MB_EXIT_FAIL;
    }
    char path[PATH_MAX];
    if (resolve_program(cmd[0], path, sizeof(path)) && !mentions_shared_runtime(path))
        fprintf(stderr, "%s: warning: %s does not load " LIBNAME "; build it with "
                        "'nvcc -cudart shared' so that minibench can run its kernels\n",
                prog, cmd[0]);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: cannot start %s: %s\n", prog, cmd[0], strerror(errno));
        return MB_EXIT_FAIL;
    }
    if (pid == 0) {
        if (directory && chdir(directory) != 0) {
            fprintf(stderr, "%s: cannot enter %s: %s\n", prog, directory, strerror(errno));
            _exit(127);
        }
        if (quiet) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, STDOUT_FILENO);
        }
        for (int i = 0; i < nvars; i++) {
            if (values[i])
                setenv(names[i], values[i], 1);
            else
                unsetenv(names[i]);
        }
        const char *old = getenv("LD_LIBRARY_PATH");
        size_t len = strlen(dir) + (old ? strlen(old) : 0) + 2;
        char *ld = malloc(len);
        if (ld) {
            snprintf(ld, len, "%s%s%s", dir, old && old[0] ? ":" : "", old ? old : "");
            setenv("LD_LIBRARY_PATH", ld, 1);
        }
        if (preload) {
            char lib[PATH_MAX + 32];
            snprintf(lib, sizeof(lib), "%s/" LIBNAME, dir);
            setenv("LD_PRELOAD", lib, 1);
        }
        execvp(cmd[0], cmd);
        fprintf(stderr, "%s: cannot run %s: %s\n", prog, cmd[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "%s: waiting for %s: %s\n", prog, cmd[0], strerror(errno));
            return MB_EXIT_FAIL;
        }
    }
    if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: %s was killed by signal %d\n", prog, cmd[0], WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}

static const char sim_program_help[] =
    "Usage: minibench sim --config NAME|FILE [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Runs an unmodified CUDA program built with 'nvcc -cudart shared' on minibench's\n"
    "libcudart.so.13 with its launches timed on the cycle simulator. Each selected\n"
    "launch gets a statistics block (kernel_name, kernel_launch_uid, gpu_sim_cycle,\n"
    "gpu_sim_insn, gpu_ipc, gpu_tot_*, cache and DRAM counts), then the totals follow;\n"
    "the device the program sees (SMs, threads, registers, shared memory, clock) is\n"
    "the configuration's, and events report simulated time. The program's output is\n"
    "its own; the exit status is the program's.\n"
    "\n"
    "Options:\n"
    "  --config NAME|FILE  a preset (see 'minibench sim --help') or a config file\n"
    "  -o, --stats FILE    write the statistics to FILE (default: standard error)\n"
    "  --kernel REGEX      statistics only for launches of kernels matching REGEX\n"
    "  --launch-index N    statistics only for the program's launch N\n"
    "  --max-launches N    statistics for at most the first N selected launches\n"
    "  --fast-forward      run the launches not selected functionally, untimed\n"
    "  --ptx FILE          use this PTX instead of the program's fat binaries\n"
    "  --verbose           one line per launch on standard error\n"
    "  --preload           also put the library in LD_PRELOAD\n"
    "  -h, --help          show this help\n";

int cli_cudart_sim(int argc, char **argv, char **cmd)
{
    const char *prog = "minibench sim";
    const char *config = NULL, *stats = NULL, *kernel = NULL, *index_s = NULL, *max_s = NULL,
               *ff = NULL, *ptx = NULL, *verbose = NULL, *preload = NULL;
    cli_option opts[] = {{"--config", NULL, 1, &config},        {"--stats", "-o", 1, &stats},
                         {"--kernel", NULL, 1, &kernel},        {"--launch-index", NULL, 1, &index_s},
                         {"--max-launches", NULL, 1, &max_s},   {"--fast-forward", NULL, 0, &ff},
                         {"--ptx", NULL, 1, &ptx},              {"--verbose", NULL, 0, &verbose},
                         {"--preload", NULL, 0, &preload}};
    int npos = 0;
    int rc = cli_parse(prog, argc, argv, opts, sizeof(opts) / sizeof(opts[0]), NULL, 0, &npos,
                       sim_program_help);
    if (rc != 0)
        return rc < 0 ? MB_EXIT_OK : rc;
    if (!config)
        return cli_usage_error(prog, "--config NAME|FILE is required");
    uint64_t v = 0;
    if ((index_s && !cli_parse_number(prog, "--launch-index", index_s, 0, UINT64_MAX - 1, &v)) ||
        (max_s && !cli_parse_number(prog, "--max-launches", max_s, 1, UINT64_MAX - 1, &v)))
        return MB_EXIT_USAGE;
    /* A stale statistics file must not pass for this run's. */
    if (stats && remove(stats) != 0 && errno != ENOENT) {
        fprintf(stderr, "%s: cannot remove the old %s: %s\n", prog, stats, strerror(errno));
        return MB_EXIT_FAIL;
    }
    const char *names[] = {"MINIBENCH_CUDART_MODE",         "MINIBENCH_CUDART_CONFIG",
                           "MINIBENCH_CUDART_STATS",        "MINIBENCH_CUDART_KERNEL",
                           "MINIBENCH_CUDART_LAUNCH_INDEX", "MINIBENCH_CUDART_MAX_PROFILES",
                           "MINIBENCH_CUDART_FAST_FORWARD", "MINIBENCH_CUDART_PTX",
                           "MINIBENCH_CUDART_VERBOSE",      "MINIBENCH_CUDART_THREADS"};
    const char *values[] = {"sim", config, stats,       kernel,
                            index_s, max_s, ff ? "1" : NULL, ptx,
                            verbose ? "1" : NULL, NULL};
    return cli_cudart_exec(prog, cmd, names, values, 10, preload != NULL, NULL, 0);
}
