/* rt_header: the embedded gpuc.h (see rt_header.h). Keep the display
 * declarations in step with rt_display.h and the __gpuc_show_* ones with
 * rt_result.h. */
#include "rt_header.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "rt_launch.h"

const char *rt_header(void)
{
    static char *text;
    if (!text) {
        size_t a = strlen(rt_header_text), b = strlen(gpu_host_header),
               c = strlen(rt_launch_header);
        text = malloc(a + b + c + 1);
        if (!text)
            abort();
        memcpy(text, rt_header_text, a);
        memcpy(text + a, gpu_host_header, b);
        memcpy(text + a + b, rt_launch_header, c + 1);
    }
    return text;
}

const char rt_header_text[] =
    "#line 1 \"gpuc.h\"\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <stdint.h>\n"
    "#include <stddef.h>\n"
    "#include <stdbool.h>\n"
    "#include <math.h>\n"
    "/* display from a cell: each call shows one output in the notebook */\n"
    "void display_text(const char *text);\n"
    "void display_html(const char *html);\n"
    "void display_markdown(const char *markdown);\n"
    "void display_svg(const char *svg);\n"
    "void display_json(const char *json_text);\n"
    "void display_png(const void *data, size_t len);\n"
    "void display_mime(const char *mime, const char *data);\n"
    "void clear_output(int wait);\n"
    "/* used by the code gpuc generates for a cell's final expression */\n"
    "void __gpuc_show_int(long long);\n"
    "void __gpuc_show_uint(unsigned long long);\n"
    "void __gpuc_show_bool(_Bool);\n"
    "void __gpuc_show_char(char);\n"
    "void __gpuc_show_float(float);\n"
    "void __gpuc_show_double(double);\n"
    "void __gpuc_show_ldouble(long double);\n"
    "void __gpuc_show_str(const char *);\n"
    "void __gpuc_show_ptr(const volatile void *);\n"
    "struct __gpuc_no_format { int never; };\n"
    "void __gpuc_show_fail(struct __gpuc_no_format);\n"
    "void __gpuc_struct_begin(const char *, unsigned long long);\n"
    "void __gpuc_struct_field(const char *);\n"
    "void __gpuc_struct_end(const char *, unsigned long long);\n"
    "void __gpuc_field_sint(const void *, unsigned long long);\n"
    "void __gpuc_field_uint(const void *, unsigned long long);\n"
    "void __gpuc_field_bool(const void *, unsigned long long);\n"
    "void __gpuc_field_char(const void *, unsigned long long);\n"
    "void __gpuc_field_float(const void *, unsigned long long);\n"
    "void __gpuc_field_double(const void *, unsigned long long);\n"
    "void __gpuc_field_ldouble(const void *, unsigned long long);\n"
    "void __gpuc_field_str(const void *, unsigned long long);\n"
    "void __gpuc_field_other(const void *, unsigned long long);\n";
