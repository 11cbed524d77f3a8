/* rt_header: the embedded gpuc.h (see rt_header.h); the functions it
 * declares come from the one list in rt_api.h. */
#include "rt_header.h"

#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "rt_api.h"
#include "rt_launch.h"

const char rt_header_text[] =
    "#line 1 \"gpuc.h\"\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <stdint.h>\n"
    "#include <stddef.h>\n"
    "#include <stdbool.h>\n"
    "#include <math.h>\n"
    "struct __gpuc_no_format { int never; };\n"
    "void __gpuc_show_fail(struct __gpuc_no_format);\n";

/* The declarations of rt_api.h's list, one per line. */
#define RT_API_DECLARATION(ret, name, params, impl) #ret " " #name #params ";\n"
static const char api_declarations[] = RT_API_LIST(RT_API_DECLARATION);


const char *rt_header(void)
{
    static char *text;
    if (!text) {
        size_t a = strlen(rt_header_text), b = strlen(gpu_host_header),
               c = strlen(rt_launch_header), d = strlen(api_declarations);
        text = malloc(a + b + c + d + 1);
        if (!text)
            abort();
        memcpy(text, rt_header_text, a);
        memcpy(text + a, gpu_host_header, b);
        memcpy(text + a + b, rt_launch_header, c);
        memcpy(text + a + b + c, api_declarations, d + 1);
    }
    return text;
}
