/* minibench: the command line. */
#include "cli.h"

#include <string.h>

static const char main_help[] =
    "Usage: minibench <command> [options]\n"
    "\n"
    "minibench profiles CUDA kernels at the PTX level and makes miniature clones of them\n"
    "that simulate quickly while behaving like the original.\n"
    "\n"
    "Commands:\n"
    "  ptx check FILE...   parse PTX files and summarise each kernel\n"
    "  ptx print FILE      print canonical PTX\n"
    "  ptx cfg FILE        draw a kernel's control-flow graph (DOT or SVG)\n"
    "  run FILE --launch L run a PTX file's launches on the functional SIMT executor\n"
    "  profile FILE ...    profile launches: DFSG and profile JSON per launch\n"
    "  render FILE.dot     draw a DFSG or CFG as SVG\n"
    "\n"
    "Options:\n"
    "  -h, --help          show this help; 'minibench <command> --help' for a command\n"
    "  --version           print the version\n"
    "\n"
    "Exit status: 0 success, 1 bad input or failure, 2 usage error.\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(main_help, stderr);
        return MB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(main_help, stdout);
        return MB_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("minibench %s\n", MB_VERSION);
        return MB_EXIT_OK;
    }
    if (strcmp(cmd, "ptx") == 0)
        return cmd_ptx(argc - 2, argv + 2);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "profile") == 0)
        return cmd_profile(argc - 2, argv + 2);
    if (strcmp(cmd, "render") == 0)
        return cmd_render(argc - 2, argv + 2);
    fprintf(stderr, "minibench: unknown command '%s'\nTry 'minibench --help' for the list of commands.\n",
            cmd);
    return MB_EXIT_USAGE;
}
