/* gpuc: a Jupyter kernel for C and CUDA. One binary, several commands. */
#include <stdio.h>
#include <string.h>

#include "gpuc_config.h"
#include "jk_commands.h"
#include "rt_executor.h"

typedef struct command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *help;
} command_t;

static const command_t commands[] = {
    {"kernel", jk_kernel_main, "kernel -f CONNECTION_FILE   serve a Jupyter session"},
    {"install", jk_install_main, "install [--user | --sys-prefix | --prefix DIR]   install the kernelspec"},
    {"run", jk_notebook_main, "run NOTEBOOK.ipynb [-o OUT.ipynb | --inplace] [-p NAME VALUE]...   execute a notebook headless"},
    {"executor", rt_executor_main, NULL}, /* internal: started by the kernel */
};

static int usage(FILE *out)
{
    fprintf(out, "gpuc %s — a Jupyter kernel for C and CUDA\n\nusage:\n", GPUC_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].help)
            fprintf(out, "  gpuc %s\n", commands[i].help);
    fprintf(out, "  gpuc --version\n");
    return out == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("gpuc %s\n", GPUC_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
        return usage(stdout);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].main(argc - 1, argv + 1);
    fprintf(stderr, "gpuc: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
