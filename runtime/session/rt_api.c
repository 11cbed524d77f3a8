/* rt_api: the symbol table of the functions cells call, made from the one
 * list in rt_api.h (the declarations of gpuc.h come from the same list). */
#include "rt_api_table.h"

#include <stddef.h>

#include "ga_api.h"
#include "ga_api_math.h"
#include "ga_api_rearrange.h"
#include "ga_blas.h"
#include "ga_einsum.h"
#include "ga_fft.h"
#include "ga_linalg.h"
#include "ga_multi.h"
#include "ga_random.h"
#include "gpu.h"
#include "rt_array_pictures.h"
#include "rt_arrays.h"
#include "rt_display.h"
#include "rt_gpu_func.h"
#include "rt_gpu_host.h"
#include "rt_protect.h"
#include "rt_result.h"

#define RT_API_SYMBOL(ret, name, params, impl) {#name, (const void *)impl},
#define RT_API_RENAMED_SYMBOL(old, name, impl) {#old, (const void *)impl},

const rt_symbol_t rt_api_symbols[] = {
    RT_API_LIST(RT_API_SYMBOL) RT_API_RENAMED(RT_API_RENAMED_SYMBOL){NULL, NULL}};
