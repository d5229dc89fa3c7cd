/* minibench: the command line. */
#include "cli.h"

#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis;
    const char *summary;
} command;

static const command commands[] = {
#define MB_COMMAND(name, function, synopsis, summary) {name, function, synopsis, summary},
#include "commands.def"
#undef MB_COMMAND
};

static void print_help(FILE *out)
{
    fputs("Usage: minibench <command> [options]\n"
          "\n"
          "minibench profiles CUDA kernels at the PTX level and makes miniature clones of them\n"
          "that simulate quickly while behaving like the original.\n"
          "\n"
          "Commands:\n",
          out);
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(out, "  %-24s %s\n", commands[i].synopsis, commands[i].summary);
    fputs("\n"
          "Options:\n"
          "  -h, --help               show this help; 'minibench <command> --help' for a command\n"
          "  --version                print the version\n"
          "\n"
          "Exit status: 0 success, 1 bad input or failure, 2 usage error.\n",
          out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return MB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        print_help(stdout);
        return MB_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("minibench %s\n", MB_VERSION);
        return MB_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "minibench: unknown command '%s'\nTry 'minibench --help' for the list of commands.\n",
            cmd);
    return MB_EXIT_USAGE;
}
