/* rt_api: THE list of the functions gpuc gives cells — one line each.
 *
 * RT_API_LIST(X) calls X(return type, name in cells, (parameters),
 * implementation) once per function. From this one list come both the
 * declarations of the embedded gpuc.h (rt_header.c: the cell language
 * declares, it never calls) and the symbol table given to TCC and to
 * %%cc's stub library (session/rt_api.c: the session links). A new
 * function for cells is one line here and its implementation.
 *
 * The names follow one rule (docs/cells.md, "Names"): device arrays are
 * ga_*, everything else gpuc gives cells is gpuc_*, and what only the code
 * gpuc generates calls is __gpuc_*; the CUDA runtime keeps NVIDIA's names. */
#ifndef RT_API_H
#define RT_API_H

#define RT_API_LIST(X)                                                                        \
    /* display from a cell: each call shows one output in the notebook */                    \
    X(void, gpuc_display_text, (const char *text), rt_display_text)                           \
    X(void, gpuc_display_html, (const char *html), rt_display_html)                           \
    X(void, gpuc_display_markdown, (const char *markdown), rt_display_markdown)               \
    X(void, gpuc_display_svg, (const char *svg), rt_display_svg)                              \
    X(void, gpuc_display_json, (const char *json_text), rt_display_json)                      \
    X(void, gpuc_display_png, (const void *data, size_t len), rt_display_png)                 \
    X(void, gpuc_display_mime, (const char *mime, const char *data), rt_display_mime)         \
    X(void, gpuc_clear_output, (int wait), rt_display_clear_output)                           \
    /* the line of the top-level statement that runs (code gpuc generates) */                 \
    /* used by the code gpuc generates for a cell's final expression */                       \
    X(void, __gpuc_show_int, (long long), rt_result_show_int)                                 \
    X(void, __gpuc_show_uint, (unsigned long long), rt_result_show_uint)                      \
    X(void, __gpuc_show_bool, (_Bool), rt_result_show_bool)                                   \
    X(void, __gpuc_show_char, (char), rt_result_show_char)                                    \
    X(void, __gpuc_show_float, (float), rt_result_show_float)                                 \
    X(void, __gpuc_show_double, (double), rt_result_show_double)                              \
    X(void, __gpuc_show_ldouble, (long double), rt_result_show_ldouble)                       \
    X(void, __gpuc_show_str, (const char *), rt_result_show_str)                              \
    X(void, __gpuc_show_ptr, (const volatile void *), rt_result_show_ptr)                     \
    X(void, __gpuc_struct_begin, (const char *, unsigned long long), rt_result_struct_begin)  \
    X(void, __gpuc_struct_field, (const char *), rt_result_struct_field)                      \
    X(void, __gpuc_struct_end, (const char *, unsigned long long), rt_result_struct_end)      \
    X(void, __gpuc_field_sint, (const void *, unsigned long long), rt_result_field_sint)      \
    X(void, __gpuc_field_uint, (const void *, unsigned long long), rt_result_field_uint)      \
    X(void, __gpuc_field_bool, (const void *, unsigned long long), rt_result_field_bool)      \
    X(void, __gpuc_field_char, (const void *, unsigned long long), rt_result_field_char)      \
    X(void, __gpuc_field_float, (const void *, unsigned long long), rt_result_field_float)    \
    X(void, __gpuc_field_double, (const void *, unsigned long long), rt_result_field_double)  \
    X(void, __gpuc_field_ldouble, (const void *, unsigned long long), rt_result_field_ldouble) \
    X(void, __gpuc_field_str, (const void *, unsigned long long), rt_result_field_str)        \
    X(void, __gpuc_field_chars, (const void *, unsigned long long), rt_result_field_chars)    \
    X(void, __gpuc_field_ptr, (const void *, unsigned long long), rt_result_field_ptr)        \
    X(void, __gpuc_field_other, (const void *, unsigned long long), rt_result_field_other)    \
    X(void, __gpuc_array_begin, (void), rt_result_array_begin)                                \
    X(int, __gpuc_array_item, (void), rt_result_array_item)                                   \
    X(void, __gpuc_array_end, (void), rt_result_array_end)                                    \
    X(void, __gpuc_show_array, (const struct ga_array *), rt_arrays_show)                     \
    /* the CUDA runtime as gpuc serves it (rt_cuda_header's macros call these) */            \
    X(int, __gpuc_device_props, (struct gpu_device_props *prop, int device),                  \
      gpu_device_properties)                                                                  \
    X(int, __gpuc_simulating, (void), gpu_simulating)                                         \
    X(int, __gpuc_cuda_malloc, (void *ptr, size_t size, const char *what, int line),          \
      rt_gpu_cuda_malloc)                                                                     \
    X(int, __gpuc_cuda_free, (void *ptr), rt_gpu_cuda_free)                                   \
    X(int, __gpuc_cuda_sync, (void), rt_gpu_device_synchronize)                               \
    X(int, __gpuc_cuda_stream_sync, (void *stream), rt_gpu_stream_synchronize)                \
    X(int, __gpuc_cuda_event_sync, (void *event), rt_gpu_event_synchronize)                   \
    X(int, __gpuc_cuda_memcpy, (void *dst, const void *src, size_t count, int kind),          \
      rt_gpu_memcpy)                                                                          \
    X(int, __gpuc_memcpy_symbol,                                                              \
      (const char *name, void *buf, size_t count, size_t offset, int kind, int to_device,     \
       void *stream, int async),                                                              \
      rt_gpu_memcpy_symbol)                                                                   \
    X(int, __gpuc_symbol_address, (void **dev, const char *name), rt_gpu_symbol_address)      \
    X(int, __gpuc_symbol_size, (size_t *size, const char *name), rt_gpu_symbol_size)          \
    /* what kernel<<<grid, block>>>(args) becomes (rt_launch.c) */                            \
    X(int, __gpuc_launch,                                                                     \
      (const char *kernel, const void *grid, int grid_is_dim3, unsigned grid_size,            \
       const void *block, int block_is_dim3, unsigned block_size, unsigned long long shared,  \
       void *stream, int nargs, void **args, const unsigned long long *sizes,                 \
       const char *kinds, const char **types, int cell, int line),                            \
      rt_gpu_launch)                                                                          \
    /* the runtime functions that take a kernel (rt_gpu_func.c) */                            \
    X(int, __gpuc_func_get_attributes, (void *attr, size_t size, const void *func),           \
      rt_gpu_func_attributes)                                                                 \
    X(int, __gpuc_func_set_attribute, (const void *func, int attr, int value),                \
      rt_gpu_func_set_attribute)                                                              \
    X(int, __gpuc_func_set_cache_config, (const void *func, int config),                      \
      rt_gpu_func_set_cache_config)                                                           \
    X(int, __gpuc_occupancy_blocks, (int *n, const void *func, int block, size_t shared),     \
      rt_gpu_occupancy_blocks)                                                                \
    X(int, __gpuc_occupancy_block_size,                                                       \
      (int *min_grid, int *block, const void *func, size_t shared, int limit),                \
      rt_gpu_occupancy_block_size)                                                            \
    X(const void *, __gpuc_kernel_handle, (const char *name, int cell, int line),             \
      rt_gpu_kernel_handle)                                                                   \
    X(int, __gpuc_launch_kernel,                                                              \
      (const void *func, const void *grid, int grid_is_dim3, unsigned grid_size,              \
       const void *block, int block_is_dim3, unsigned block_size, void **args,                \
       unsigned long long shared, void *stream, int cooperative, int line),                  \
      rt_gpu_launch_kernel)                                                                   \
    /* device arrays (runtime/array/ga_api.h, docs/arrays.md) */                              \
    X(ga_t, ga_empty_n, (ga_dtype_t dtype, int ndim, const long long *dims), ga_api_empty)    \
    X(ga_t, ga_zeros_n, (ga_dtype_t dtype, int ndim, const long long *dims), ga_api_zeros)    \
    X(ga_t, ga_ones_n, (ga_dtype_t dtype, int ndim, const long long *dims), ga_api_ones)      \
    X(ga_t, ga_full_n, (ga_dtype_t dtype, double value, int ndim, const long long *dims), ga_api_full) \
    X(ga_t, ga_arange, (ga_dtype_t dtype, double start, double stop, double step), ga_api_arange) \
    X(ga_t, ga_linspace, (ga_dtype_t dtype, double start, double stop, long long num),        \
      ga_api_linspace)                                                                        \
    X(ga_t, ga_eye, (ga_dtype_t dtype, long long n), ga_api_eye)                              \
    X(ga_t, ga_empty_like, (ga_t a), ga_api_empty_like)                                       \
    X(ga_t, ga_zeros_like, (ga_t a), ga_api_zeros_like)                                       \
    X(ga_t, ga_ones_like, (ga_t a), ga_api_ones_like)                                         \
    X(ga_t, ga_full_like, (ga_t a, double value), ga_api_full_like)                           \
    X(ga_t, ga_from_host_n, (ga_dtype_t dtype, const void *data, int ndim, const long long *dims), \
      ga_api_from_host)                                                                       \
    X(ga_t, ga_from_device_n, (ga_dtype_t dtype, void *ptr, int ndim, const long long *dims), \
      ga_api_from_device)                                                                     \
    X(ga_t, ga_load, (const char *path), ga_api_load)                                         \
    X(void, ga_print, (ga_t a), ga_api_print)                                                 \
    X(void, ga_save, (ga_t a, const char *path), ga_api_save)                                 \
    X(void, ga_heatmap, (ga_t a), rt_array_heatmap)                                           \
    X(void, ga_plot, (ga_t a), rt_array_plot)                                                 \
    X(void, ga_hist, (ga_t a, int bins), rt_array_hist)                                       \
    X(ga_t, ga_reshape_n, (ga_t a, int ndim, const long long *dims), ga_api_reshape)          \
    X(ga_t, ga_slice, (ga_t a, int axis, long long start, long long stop, long long step),    \
      ga_api_slice)                                                                           \
    X(ga_t, ga_index, (ga_t a, int axis, long long i), ga_api_index)                          \
    X(ga_t, ga_row, (ga_t a, long long i), ga_api_row)                                        \
    X(ga_t, ga_col, (ga_t a, long long j), ga_api_col)                                        \
    X(ga_t, ga_transpose, (ga_t a), ga_api_transpose)                                         \
    X(ga_t, ga_permute_n, (ga_t a, int naxes, const long long *axes), ga_api_permute)         \
    X(ga_t, ga_copy, (ga_t a), ga_api_copy)                                                   \
    X(ga_t, ga_to_device, (ga_t a, int device), ga_api_to_device)                             \
    X(void, ga_read, (ga_t a, void *dst), ga_api_read)                                        \
    X(void, ga_write, (ga_t a, const void *src), ga_api_write)                                \
    X(double, ga_item_n, (ga_t a, int nidx, const long long *idx), ga_api_item)               \
    X(long long, ga_item_i64_n, (ga_t a, int nidx, const long long *idx), ga_api_item_i64)    \
    X(void, ga_set_n, (ga_t a, double value, int nidx, const long long *idx), ga_api_set)     \
    X(int, ga_ndim, (ga_t a), ga_api_ndim)                                                    \
    X(long long, ga_dim, (ga_t a, int axis), ga_api_dim)                                      \
    X(long long, ga_size, (ga_t a), ga_api_size)                                              \
    X(size_t, ga_nbytes, (ga_t a), ga_api_nbytes)                                             \
    X(int, ga_dtype, (ga_t a), ga_api_dtype)                                                  \
    X(int, ga_device, (ga_t a), ga_api_device)                                                \
    X(void *, ga_data, (ga_t a), ga_api_data)                                                 \
    X(void, ga_free, (ga_t a), ga_api_free)                                                   \
    X(ga_t, ga_keep, (ga_t a), ga_api_keep)                                                   \
    X(void, ga_use_device, (int device), ga_api_use_device)                                   \
    X(int, ga_default_device, (void), ga_api_default_device)                                  \
    /* array math (runtime/array/ga_api_math.h; the named operations are macros: ga_ops.h) */  \
    X(ga_t, ga_eval_n, (const char *fn, const char *expr, ga_t out, int nargs,                \
                        const ga_arg_t *args), ga_api_eval)                                   \
    X(double, ga_reduce_all, (const char *fn, const char *op, ga_t a), ga_api_reduce_all)     \
    X(long long, ga_reduce_all_i64, (const char *fn, const char *op, ga_t a),                 \
      ga_api_reduce_all_i64)                                                                  \
    X(ga_t, ga_reduce_axis, (const char *fn, const char *op, ga_t a, int axis, int keepdims), \
      ga_api_reduce_axis)                                                                     \
    X(ga_t, ga_astype, (ga_t a, ga_dtype_t dtype), ga_api_astype)                             \
    X(ga_t, ga_cumsum, (ga_t a, int axis), ga_api_cumsum)                                     \
    X(ga_t, ga_cumprod, (ga_t a, int axis), ga_api_cumprod)                                   \
    /* random numbers and BLAS (runtime/array/ga_random.h, ga_blas.h) */                     \
    X(ga_t, ga_random_n, (ga_dtype_t dtype, int ndim, const long long *dims), ga_api_random)  \
    X(ga_t, ga_normal_n, (ga_dtype_t dtype, double mean, double std, int ndim, const long long *dims), \
      ga_api_normal)                                                                          \
    X(ga_t, ga_integers_n,                                                                    \
      (ga_dtype_t dtype, long long low, long long high, int ndim, const long long *dims),     \
      ga_api_integers)                                                                        \
    X(void, ga_seed, (unsigned long long seed), ga_api_seed)                                  \
    X(ga_t, ga_matmul, (ga_t a, ga_t b), ga_api_matmul)                                       \
    X(double, ga_dot, (ga_t a, ga_t b), ga_api_dot)                                           \
    X(int, ga_set_tf32, (int on), ga_api_set_tf32)                                            \
    /* linear algebra and FFTs (runtime/array/ga_linalg.h, ga_fft.h) */                      \
    X(ga_t, ga_solve, (ga_t a, ga_t b), ga_api_solve)                                         \
    X(ga_t, ga_inv, (ga_t a), ga_api_inv)                                                     \
    X(ga_t, ga_det, (ga_t a), ga_api_det)                                                     \
    X(ga_t, ga_cholesky, (ga_t a), ga_api_cholesky)                                           \
    X(void, ga_qr, (ga_t a, ga_t *q, ga_t *r), ga_api_qr)                                     \
    X(void, ga_svd, (ga_t a, int full_matrices, ga_t *u, ga_t *s, ga_t *vh), ga_api_svd)      \
    X(void, ga_eigh, (ga_t a, ga_t *w, ga_t *v), ga_api_eigh)                                 \
    X(ga_t, ga_lstsq, (ga_t a, ga_t b, double rcond, ga_t *residuals, long long *rank,       \
                       ga_t *s), ga_api_lstsq)                                                \
    X(double, ga_norm, (ga_t a, const char *ord), ga_api_norm)                                \
    X(ga_t, ga_fft, (ga_t a, long long n, int axis, const char *norm), ga_api_fft)            \
    X(ga_t, ga_ifft, (ga_t a, long long n, int axis, const char *norm), ga_api_ifft)          \
    X(ga_t, ga_rfft, (ga_t a, long long n, int axis, const char *norm), ga_api_rfft)          \
    X(ga_t, ga_irfft, (ga_t a, long long n, int axis, const char *norm), ga_api_irfft)        \
    X(ga_t, ga_fft2, (ga_t a, const char *norm), ga_api_fft2)                                 \
    X(ga_t, ga_ifft2, (ga_t a, const char *norm), ga_api_ifft2)                               \
    X(ga_t, ga_rfft2, (ga_t a, const char *norm), ga_api_rfft2)                               \
    X(ga_t, ga_irfft2, (ga_t a, const char *norm), ga_api_irfft2)                             \
    X(ga_t, ga_fftn, (ga_t a, const char *norm), ga_api_fftn)                                 \
    X(ga_t, ga_ifftn, (ga_t a, const char *norm), ga_api_ifftn)                               \
    X(ga_t, ga_rfftn, (ga_t a, const char *norm), ga_api_rfftn)                               \
    X(ga_t, ga_irfftn, (ga_t a, const char *norm), ga_api_irfftn)                             \
    X(ga_t, ga_einsum_n, (const char *subscripts, int nargs, const ga_t *args), ga_api_einsum) \
    /* several devices (runtime/array/ga_multi.h) */                                          \
    X(void, ga_allreduce, (ga_t *arrays, int n, const char *op), ga_api_allreduce)            \
    X(int, ga_device_count, (void), ga_api_device_count) \
    /* joining, indexing by data, sorting, several axes (ga_api_rearrange.h, ga_api_math.h) */ \
    X(ga_t, ga_reduce_axes, (const char *fn, const char *op, ga_t a, int naxes,               \
                             const long long *axes, int keepdims, double ddof), ga_api_reduce_axes) \
    X(ga_t, ga_concatenate_n, (int n, const ga_t *arrays, int axis), ga_api_concatenate)      \
    X(ga_t, ga_stack_n, (int n, const ga_t *arrays, int axis), ga_api_stack)                  \
    X(int, ga_split_n, (ga_t a, long long sections, int axis, int nidx, const long long *idx, \
                        ga_t *parts), ga_api_split)                                           \
    X(ga_t, ga_pad_n, (ga_t a, const char *mode, double value, int nwidths,                   \
                       const long long *widths), ga_api_pad)                                  \
    X(ga_t, ga_repeat, (ga_t a, long long repeats, int axis), ga_api_repeat)                  \
    X(ga_t, ga_tile_n, (ga_t a, int nreps, const long long *reps), ga_api_tile)               \
    X(ga_t, ga_flip, (ga_t a, int axis), ga_api_flip)                                         \
    X(ga_t, ga_roll, (ga_t a, long long shift, int axis), ga_api_roll)                        \
    X(ga_t, ga_take, (ga_t a, ga_t idx, int axis), ga_api_take)                               \
    X(void, ga_put_n, (ga_t a, ga_t idx, const ga_arg_t *v), ga_api_put)                      \
    X(int, ga_nonzero, (ga_t a, ga_t *out), ga_api_nonzero)                                   \
    X(ga_t, ga_argwhere, (ga_t a), ga_api_argwhere)                                           \
    X(ga_t, ga_flatnonzero, (ga_t a), ga_api_flatnonzero)                                     \
    X(ga_t, ga_mask_select, (ga_t a, ga_t mask), ga_api_mask_select)                          \
    X(void, ga_mask_assign_n, (ga_t a, ga_t mask, const ga_arg_t *v), ga_api_mask_assign)     \
    X(ga_t, ga_compress, (ga_t cond, ga_t a, int axis), ga_api_compress)                      \
    X(ga_t, ga_sort, (ga_t a, int axis), ga_api_sort)                                         \
    X(ga_t, ga_argsort, (ga_t a, int axis), ga_api_argsort)                                   \
    X(ga_t, ga_partition, (ga_t a, long long kth, int axis), ga_api_partition)                \
    X(ga_t, ga_argpartition, (ga_t a, long long kth, int axis), ga_api_argpartition)          \
    X(ga_t, ga_unique, (ga_t a), ga_api_unique)                                               \
    X(ga_t, ga_unique_counts, (ga_t a, ga_t *counts), ga_api_unique_counts)                   \
    X(ga_t, ga_searchsorted, (ga_t a, ga_t v, const char *side), ga_api_searchsorted)         \
    X(ga_t, ga_histogram, (ga_t a, long long bins, double lo, double hi, ga_t *edges),        \
      ga_api_histogram)                                                                       \
    /* a value exact in its dtype: what ga_full, ga_full_like, ga_set become (ga_api.h) */     \
    X(ga_t, ga_full_v, (ga_dtype_t dtype, ga_arg_t value, int ndim, const long long *dims),   \
      ga_api_full_v)                                                                          \
    X(ga_t, ga_full_like_v, (ga_t a, ga_arg_t value), ga_api_full_like_v)                     \
    X(void, ga_set_v, (ga_t a, ga_arg_t value, int nidx, const long long *idx), ga_api_set_v) \
    X(ga_t, ga_arange_i, (ga_dtype_t dtype, long long start, long long stop, long long step), \
      ga_api_arange_i)                                                                        \
    /* NumPy's take and put modes: "raise", "wrap", "clip" (ga_index.h) */                  \
    X(ga_t, ga_take_mode, (ga_t a, ga_t idx, int axis, const char *mode), ga_api_take_mode)   \
    X(void, ga_put_mode_n, (ga_t a, ga_t idx, const ga_arg_t *v, const char *mode),          \
      ga_api_put_mode)

/* The names of before the prefix rule, kept for one release so that
 * notebooks keep running: RT_API_RENAMED(X) calls X(old name, the list's
 * name it stands for, implementation). gpuc.h declares each old name with
 * its new name's type. */
#define RT_API_RENAMED(X)                                                                     \
    X(display_text, gpuc_display_text, rt_display_text)                                       \
    X(display_html, gpuc_display_html, rt_display_html)                                       \
    X(display_markdown, gpuc_display_markdown, rt_display_markdown)                           \
    X(display_svg, gpuc_display_svg, rt_display_svg)                                          \
    X(display_json, gpuc_display_json, rt_display_json)                                       \
    X(display_png, gpuc_display_png, rt_display_png)                                          \
    X(display_mime, gpuc_display_mime, rt_display_mime)                                       \
    X(clear_output, gpuc_clear_output, rt_display_clear_output)                               \
    X(gpu_device_properties, __gpuc_device_props, gpu_device_properties)

/* A name cells link against and its address. */
typedef struct rt_symbol {
    const char *name;
    const void *addr;
} rt_symbol_t;

#endif
