/* jk_commands: the `gpuc` subcommands that live in kernel/. Each takes the
 * arguments after the subcommand name and returns the process exit status. */
#ifndef JK_COMMANDS_H
#define JK_COMMANDS_H

/* gpuc kernel -f CONNECTION_FILE: serve one Jupyter session. */
int jk_kernel_main(int argc, char **argv);

/* gpuc install [--user | --sys-prefix | --prefix DIR]: write the kernelspec,
 * with gpuc_h (the text of gpuc.h, which the runtime makes) as gpuc.h
 * beside kernel.json. */
int jk_install_main(int argc, char **argv, const char *gpuc_h);

/* gpuc run NOTEBOOK.ipynb [-o OUT.ipynb] [--allow-errors]: execute headless. */
int jk_notebook_main(int argc, char **argv);

/* The absolute path of the running gpuc binary into buf (from
 * /proc/self/exe). Returns 0, or -1 when it cannot be read. */
int jk_self_exe(char *buf, size_t size);

#endif
