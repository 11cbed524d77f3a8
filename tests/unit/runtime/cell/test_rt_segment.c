/* test_rt_segment: pieces of a cell on the cell's own lines. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rt_segment.h"

static void test_segments(void)
{
    const char *code = "int a = 1;\n%timeit a++\nint b = 2;\n";
    size_t from = strstr(code, "int b") - code;
    rt_segment_t seg = rt_segment_of(code, from, strlen(code), 3, 7);
    CHECK(seg.line == 3 && seg.cell == 7 && !rt_segment_is_blank(&seg));
    char *src = rt_segment_source(&seg);
    CHECK_STR(src, "\n\nint b = 2;\n"); /* line 3 of the cell is line 3 here */
    free(src);
    rt_segment_t blank = rt_segment_of(" \n\t\n", 0, 4, 1, 1);
    CHECK(rt_segment_is_blank(&blank));
    char *kept = rt_segment_blank_outside("ab\ncd\nef", 3, 5);
    CHECK_STR(kept, "  \ncd\n  ");
    free(kept);
}

int main(void)
{
    test_segments();
    return check_report("test_rt_segment");
}
