/* gpuc_h: writes gpuc.h, the header every host cell is compiled after
 * (runtime/cell/rt_gpuc_h.c), to the file named by its argument. Run by
 * the build (BUILD/include/gpuc.h), so the file users open and the text
 * cells see are the same bytes. */
#include <stdio.h>
#include <string.h>

#include "rt_header.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gpuc_h OUT/gpuc.h\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    size_t len = strlen(rt_gpuc_h);
    int ok = fwrite(rt_gpuc_h, 1, len, f) == len;
    if (fclose(f) != 0 || !ok) {
        perror(argv[1]);
        return 1;
    }
    return 0;
}
