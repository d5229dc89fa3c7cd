/* The `--` modes: exec a CUDA program with minibench's libcudart.so.13. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_cudart.h"

#include <errno.h>
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
                    const char *const *values, int nvars, int preload)
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
