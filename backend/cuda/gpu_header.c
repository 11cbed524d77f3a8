/* gpu_header: the C declarations host cells see for the CUDA runtime API.
 *
 * Host cells call the real libcudart (loaded RTLD_GLOBAL by
 * gpu_runtime_load), or the simulator's runtime. Their declarations are
 * NVIDIA's own cuda_runtime_api.h of the toolkit that matches the loaded
 * libcudart, made C-ready by gpu_toolkit.c (default arguments and `void **`
 * casts as macros); where no such header is found (a machine with the
 * simulator only), gpuc's own subset below, of what tutorial code uses.
 * Either way:
 * - dim3 is a plain C struct (`dim3 b(16, 16);` is rewritten into C); in
 *   C++ host cells it has CUDA's constructor too.
 * - The vector types are C structs with the alignment nvcc gives them, so a
 *   struct holding a float4 is laid out alike on both sides; make_float4 &
 *   co are static inline functions. __half and __nv_bfloat16 are their bits
 *   (`__x`), with the host conversions __float2half, __half2float,
 *   __float2bfloat16 and __bfloat162float: C has no 16-bit float. (`half`
 *   and `nv_bfloat16`, cuda_fp16.h's short names, are left to the cells: a
 *   variable named half is common.)
 * - cudaMalloc and cudaFree are tracked, and the cuda*Symbol functions take
 *   device variables by name (the macros at the end).
 * The subset's differences from NVIDIA's header: cudaMalloc,
 * cudaMallocManaged and cudaMallocHost take `void *` first, so `float **`
 * compiles without a cast; cudaDeviceProp is gpuc's struct of the common
 * fields (GPU_DEVICE_PROPS in gpu.h); three default arguments are macros
 * (cudaEventRecord(e), cudaMallocManaged(&p, n), cudaMemcpyAsync(d, s, n,
 * kind)), and so is the C++ overload cudaEventCreate(&e, flags). Its
 * error and enum values were checked against CUDA 13.0's driver_types.h. */
#include <stdlib.h>

#include "cm_buf.h"
#include "gpu.h"
#include "gpu_internal.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* A vector type and its make_ function. TCC honours _Alignas on a first
 * member (not an aligned attribute on the struct), so x carries the
 * alignment, alone in its declaration. */
#define MEMBERS1(b) ""
#define MEMBERS2(b) " " #b " y;"
#define MEMBERS3(b) " " #b " y, z;"
#define MEMBERS4(b) " " #b " y, z, w;"
#define PARAMS1(b) #b " x"
#define PARAMS2(b) PARAMS1(b) ", " #b " y"
#define PARAMS3(b) PARAMS2(b) ", " #b " z"
#define PARAMS4(b) PARAMS3(b) ", " #b " w"
#define SET1 " v.x = x;"
#define SET2 SET1 " v.y = y;"
#define SET3 SET2 " v.z = z;"
#define SET4 SET3 " v.w = w;"
#define VECTOR_DEF(t, b, n, a)                                                                     \
    "typedef struct " #t " { _Alignas(" #a ") " #b " x;" MEMBERS##n(b) " } " #t ";\n"           \
    "static inline " #t " make_" #t "(" PARAMS##n(b) ") { " #t " v;" SET##n " return v; }\n"

/* What both forms share, first: dim3 and the vector types (NVIDIA's
 * vector_types.h is not used: TCC does not align its structs), the 2-byte
 * floats, and gpuc's own device properties. */
static const char types[] =
    "typedef struct dim3 { unsigned int x, y, z;\n"
    "#ifdef __cplusplus\n" /* C++ host cells: `dim3 grid(n / 256), block(256);` */
    "  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)\n"
    "    : x(vx), y(vy), z(vz) {}\n"
    "#endif\n"
    "} dim3;\n"
    GPU_VECTOR_TYPES(VECTOR_DEF)
    /* cuda_fp16.h's and cuda_bf16.h's types as bits, with the host
     * conversions (round to nearest even, as NVIDIA's) */
    "typedef struct __half { _Alignas(2) unsigned short __x; } __half;\n"
    "typedef struct __half2 { _Alignas(4) __half x; __half y; } __half2;\n"
    "typedef struct __nv_bfloat16 { _Alignas(2) unsigned short __x; } __nv_bfloat16;\n"
    "typedef struct __nv_bfloat162 { _Alignas(4) __nv_bfloat16 x; __nv_bfloat16 y; } "
    "__nv_bfloat162;\n"
    "static inline unsigned __gpuc_float_bits(float f)\n"
    "{ union { float f; unsigned u; } v; v.f = f; return v.u; }\n"
    "static inline float __gpuc_bits_float(unsigned u)\n"
    "{ union { float f; unsigned u; } v; v.u = u; return v.f; }\n"
    "static inline __half __float2half(float f)\n"
    "{\n"
    "    unsigned u = __gpuc_float_bits(f), a = u & 0x7fffffffu, q;\n"
    "    __half h;\n"
    "    h.__x = (unsigned short)((u >> 16) & 0x8000u);\n"
    "    if (a > 0x7f800000u) { h.__x |= 0x7e00; return h; }\n"
    "    if (a >= 0x477ff000u) { h.__x |= 0x7c00; return h; }\n"
    "    if (a >= 0x38800000u) {\n"
    "        h.__x |= (unsigned short)((a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13);\n"
    "        return h;\n"
    "    }\n"
    "    int shift = 126 - (int)(a >> 23);\n"
    "    if (shift > 24) return h;\n"
    "    unsigned m = (a & 0x7fffffu) | 0x800000u, rem = m & ((1u << shift) - 1u);\n"
    "    unsigned mid = 1u << (shift - 1);\n"
    "    q = m >> shift;\n"
    "    q += rem > mid || (rem == mid && (q & 1u));\n"
    "    h.__x |= (unsigned short)q;\n"
    "    return h;\n"
    "}\n"
    "static inline float __half2float(__half h)\n"
    "{\n"
    "    unsigned s = (unsigned)(h.__x & 0x8000u) << 16, e = (h.__x >> 10) & 0x1fu;\n"
    "    unsigned m = h.__x & 0x3ffu;\n"
    "    if (e == 0x1f) return __gpuc_bits_float(s | 0x7f800000u | (m << 13));\n"
    "    if (e) return __gpuc_bits_float(s | ((e + 112u) << 23) | (m << 13));\n"
    "    if (!m) return __gpuc_bits_float(s);\n"
    "    for (e = 113; !(m & 0x400u); e--) m <<= 1;\n"
    "    return __gpuc_bits_float(s | (e << 23) | ((m & 0x3ffu) << 13));\n"
    "}\n"
    "static inline __half2 __floats2half2_rn(float a, float b)\n"
    "{ __half2 v; v.x = __float2half(a); v.y = __float2half(b); return v; }\n"
    "static inline __nv_bfloat16 __float2bfloat16(float f)\n"
    "{\n"
    "    unsigned u = __gpuc_float_bits(f);\n"
    "    __nv_bfloat16 b;\n"
    "    b.__x = (u & 0x7fffffffu) > 0x7f800000u ? (unsigned short)((u >> 16) | 0x40u)\n"
    "            : (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);\n"
    "    return b;\n"
    "}\n"
    "static inline float __bfloat162float(__nv_bfloat16 b)\n"
    "{ return __gpuc_bits_float((unsigned)b.__x << 16); }\n"
    "struct gpu_device_props { " STR(GPU_DEVICE_PROPS(GPU_PROP_FIELD)) " };\n"
    "int __gpuc_simulating(void);\n"
    "int __gpuc_device_props(struct gpu_device_props *prop, int device);\n";

/* gpuc's own declarations of the runtime API, where no toolkit header
 * matches the runtime: what tutorial code uses. */
static const char subset[] =
    "typedef enum cudaError {\n"
    "    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,\n"
    "    cudaErrorInitializationError = 3, cudaErrorCudartUnloading = 4,\n"
    "    cudaErrorInvalidConfiguration = 9, cudaErrorInvalidSymbol = 13,\n"
    "    cudaErrorInvalidDevicePointer = 17,\n"
    "    cudaErrorInvalidMemcpyDirection = 21, cudaErrorInsufficientDriver = 35,\n"
    "    cudaErrorInvalidDeviceFunction = 98, cudaErrorNoDevice = 100,\n"
    "    cudaErrorInvalidDevice = 101, cudaErrorInvalidKernelImage = 200,\n"
    "    cudaErrorNoKernelImageForDevice = 209, cudaErrorInvalidResourceHandle = 400,\n"
    "    cudaErrorNotReady = 600, cudaErrorIllegalAddress = 700,\n"
    "    cudaErrorLaunchOutOfResources = 701, cudaErrorLaunchTimeout = 702,\n"
    "    cudaErrorAssert = 710, cudaErrorHardwareStackError = 714,\n"
    "    cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716,\n"
    "    cudaErrorLaunchFailure = 719, cudaErrorUnknown = 999\n"
    "} cudaError_t;\n"
    "enum cudaMemcpyKind {\n"
    "    cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,\n"
    "    cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4\n"
    "};\n"
    "typedef struct CUstream_st *cudaStream_t;\n"
    "typedef struct CUevent_st *cudaEvent_t;\n"
    "#define cudaStreamDefault 0x00\n"
    "#define cudaStreamNonBlocking 0x01\n"
    "#define cudaEventDefault 0x00\n"
    "#define cudaEventBlockingSync 0x01\n"
    "#define cudaEventDisableTiming 0x02\n"
    "#define cudaMemAttachGlobal 0x01\n"
    "#define cudaMemAttachHost 0x02\n"
    "#define cudaHostAllocDefault 0x00\n"
    "cudaError_t cudaMalloc(void *devPtr, size_t size);\n"
    "cudaError_t cudaMallocManaged(void *devPtr, size_t size, unsigned int flags);\n"
    "cudaError_t cudaMallocHost(void *ptr, size_t size);\n"
    "cudaError_t cudaFree(void *devPtr);\n"
    "cudaError_t cudaFreeHost(void *ptr);\n"
    "cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);\n"
    "cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,\n"
    "                            enum cudaMemcpyKind kind, cudaStream_t stream);\n"
    "cudaError_t cudaMemset(void *devPtr, int value, size_t count);\n"
    "cudaError_t cudaDeviceSynchronize(void);\n"
    "cudaError_t cudaDeviceReset(void);\n"
    "cudaError_t cudaGetLastError(void);\n"
    "cudaError_t cudaPeekAtLastError(void);\n"
    "const char *cudaGetErrorString(cudaError_t error);\n"
    "const char *cudaGetErrorName(cudaError_t error);\n"
    "cudaError_t cudaGetDeviceCount(int *count);\n"
    "cudaError_t cudaSetDevice(int device);\n"
    "cudaError_t cudaGetDevice(int *device);\n"
    "cudaError_t cudaMemGetInfo(size_t *free, size_t *total);\n"
    "cudaError_t cudaEventCreate(cudaEvent_t *event);\n"
    "cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);\n"
    "cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);\n"
    "cudaError_t cudaEventSynchronize(cudaEvent_t event);\n"
    "cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);\n"
    "cudaError_t cudaEventDestroy(cudaEvent_t event);\n"
    "cudaError_t cudaStreamCreate(cudaStream_t *stream);\n"
    "cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);\n"
    "cudaError_t cudaStreamDestroy(cudaStream_t stream);\n"
    "cudaError_t cudaStreamSynchronize(cudaStream_t stream);\n"
    "cudaError_t cudaRuntimeGetVersion(int *version);\n"
    "cudaError_t cudaDriverGetVersion(int *version);\n"
    "struct cudaDeviceProp { " STR(GPU_DEVICE_PROPS(GPU_PROP_FIELD)) " };\n"
    "typedef struct cudaDeviceProp cudaDeviceProp;\n"
    "struct cudaFuncAttributes {\n"
    "    size_t sharedSizeBytes, constSizeBytes, localSizeBytes;\n"
    "    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA;\n"
    "    int maxDynamicSharedSizeBytes, preferredShmemCarveout, clusterDimMustBeSet;\n"
    "    int requiredClusterWidth, requiredClusterHeight, requiredClusterDepth;\n"
    "    int clusterSchedulingPolicyPreference, nonPortableClusterSizeAllowed, reserved[16];\n"
    "};\n"
    "enum cudaFuncAttribute {\n"
    "    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,\n"
    "    cudaFuncAttributePreferredSharedMemoryCarveout = 9\n"
    "};\n"
    "enum cudaFuncCache {\n"
    "    cudaFuncCachePreferNone = 0, cudaFuncCachePreferShared = 1,\n"
    "    cudaFuncCachePreferL1 = 2, cudaFuncCachePreferEqual = 3\n"
    "};\n"
    "#define cudaGetDeviceProperties(prop, device) \\\n"
    "    ((cudaError_t)__gpuc_device_props((struct gpu_device_props *)(prop), (device)))\n"
    "/* the default arguments of NVIDIA's C++ header, for C: a call may leave\n"
    " * the last argument out (cudaEventRecord(start)) */\n"
    "#define cudaEventRecord(...) \\\n"
    "    __gpuc_pick3(__VA_ARGS__, , (cudaEventRecord), __gpuc_event_record1, )(__VA_ARGS__)\n"
    "#define __gpuc_event_record1(e) (cudaEventRecord)((e), (cudaStream_t)0)\n"
    "#define cudaEventCreate(...) \\\n"
    "    __gpuc_pick3(__VA_ARGS__, , __gpuc_event_create2, (cudaEventCreate), )(__VA_ARGS__)\n"
    "#define __gpuc_event_create2(e, f) cudaEventCreateWithFlags((e), (f))\n"
    "#define cudaMallocManaged(...) \\\n"
    "    __gpuc_pick4(__VA_ARGS__, , (cudaMallocManaged), __gpuc_managed2, , )(__VA_ARGS__)\n"
    "#define __gpuc_managed2(p, n) (cudaMallocManaged)((p), (n), cudaMemAttachGlobal)\n"
    "#define cudaMemcpyAsync(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, (cudaMemcpyAsync), __gpuc_memcpy_async4, , , )(__VA_ARGS__)\n"
    "#define __gpuc_memcpy_async4(d, s, n, k) (cudaMemcpyAsync)((d), (s), (n), (k), (cudaStream_t)0)\n";

/* gpuc's macros over either form: allocations it tracks, device variables
 * by name. */
static const char macros[] =
    /* a macro's form by its argument count (the subset's defaults too) */
    "#define __gpuc_pick3(a, b, c, name, ...) name\n"
    "#define __gpuc_pick4(a, b, c, d, name, ...) name\n"
    "#define __gpuc_pick5(a, b, c, d, e, name, ...) name\n"
    "#define __gpuc_pick6(a, b, c, d, e, f, name, ...) name\n"
    "/* gpuc keeps a list of what cudaMalloc gave, so that a lost GPU context\n"
    " * can say what was lost, and says why an allocation failed */\n"
    "#define cudaMalloc(ptr, size) __gpuc_cuda_malloc((ptr), (size), #ptr, __LINE__)\n"
    "#define cudaFree(ptr) __gpuc_cuda_free(ptr)\n"
    "/* waits for the GPU that an interrupt ends (the cell stops there) */\n"
    "#define cudaDeviceSynchronize() ((cudaError_t)__gpuc_cuda_sync())\n"
    "#define cudaStreamSynchronize(s) ((cudaError_t)__gpuc_cuda_stream_sync((void *)(s)))\n"
    "#define cudaEventSynchronize(e) ((cudaError_t)__gpuc_cuda_event_sync((void *)(e)))\n"
    "#define cudaMemcpy(dst, src, count, kind) \\\n"
    "    ((cudaError_t)__gpuc_cuda_memcpy((dst), (src), (count), (int)(kind)))\n"
    "/* device variables of kernel cells, by name (gpuc checks the name is\n"
    " * one: cudaErrorInvalidSymbol otherwise), with NVIDIA's defaults */\n"
    "#define cudaMemcpyToSymbol(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, __gpuc_mts5, __gpuc_mts4, __gpuc_mts3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mts3(s, b, n) __gpuc_mts5(s, b, n, 0, cudaMemcpyHostToDevice)\n"
    "#define __gpuc_mts4(s, b, n, o) __gpuc_mts5(s, b, n, o, cudaMemcpyHostToDevice)\n"
    "#define __gpuc_mts5(s, b, n, o, k) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 1, (void *)0, 0))\n"
    "#define cudaMemcpyToSymbolAsync(...) __gpuc_pick6(__VA_ARGS__, __gpuc_mtsa6, \\\n"
    "    __gpuc_mtsa5, __gpuc_mtsa4, __gpuc_mtsa3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mtsa3(s, b, n) __gpuc_mtsa6(s, b, n, 0, cudaMemcpyHostToDevice, 0)\n"
    "#define __gpuc_mtsa4(s, b, n, o) __gpuc_mtsa6(s, b, n, o, cudaMemcpyHostToDevice, 0)\n"
    "#define __gpuc_mtsa5(s, b, n, o, k) __gpuc_mtsa6(s, b, n, o, k, 0)\n"
    "#define __gpuc_mtsa6(s, b, n, o, k, st) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 1, (void *)(st), 1))\n"
    "#define cudaMemcpyFromSymbol(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, __gpuc_mfs5, __gpuc_mfs4, __gpuc_mfs3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mfs3(b, s, n) __gpuc_mfs5(b, s, n, 0, cudaMemcpyDeviceToHost)\n"
    "#define __gpuc_mfs4(b, s, n, o) __gpuc_mfs5(b, s, n, o, cudaMemcpyDeviceToHost)\n"
    "#define __gpuc_mfs5(b, s, n, o, k) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 0, (void *)0, 0))\n"
    "#define cudaMemcpyFromSymbolAsync(...) __gpuc_pick6(__VA_ARGS__, __gpuc_mfsa6, \\\n"
    "    __gpuc_mfsa5, __gpuc_mfsa4, __gpuc_mfsa3, , )(__VA_ARGS__)\n"
    "#define __gpuc_mfsa3(b, s, n) __gpuc_mfsa6(b, s, n, 0, cudaMemcpyDeviceToHost, 0)\n"
    "#define __gpuc_mfsa4(b, s, n, o) __gpuc_mfsa6(b, s, n, o, cudaMemcpyDeviceToHost, 0)\n"
    "#define __gpuc_mfsa5(b, s, n, o, k) __gpuc_mfsa6(b, s, n, o, k, 0)\n"
    "#define __gpuc_mfsa6(b, s, n, o, k, st) ((void)&(s), \\\n"
    "    (cudaError_t)__gpuc_memcpy_symbol(#s, (void *)(b), (n), (o), (k), 0, (void *)(st), 1))\n"
    "#define cudaGetSymbolAddress(p, s) \\\n"
    "    ((void)&(s), (cudaError_t)__gpuc_symbol_address((void **)(p), #s))\n"
    "#define cudaGetSymbolSize(p, s) ((void)&(s), (cudaError_t)__gpuc_symbol_size((p), #s))\n"
    "/* the functions that take a kernel: a kernel's name is its handle in\n"
    " * host cells (cudaErrorInvalidDeviceFunction for anything else) */\n"
    "#undef cudaFuncGetAttributes\n"
    "#define cudaFuncGetAttributes(a, f) \\\n"
    "    ((cudaError_t)__gpuc_func_get_attributes((a), sizeof *(a), (const void *)(f)))\n"
    "#undef cudaFuncSetAttribute\n"
    "#define cudaFuncSetAttribute(f, attr, v) \\\n"
    "    ((cudaError_t)__gpuc_func_set_attribute((const void *)(f), (int)(attr), (v)))\n"
    "#undef cudaFuncSetCacheConfig\n"
    "#define cudaFuncSetCacheConfig(f, c) \\\n"
    "    ((cudaError_t)__gpuc_func_set_cache_config((const void *)(f), (int)(c)))\n"
    "#undef cudaOccupancyMaxActiveBlocksPerMultiprocessor\n"
    "#define cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, s) \\\n"
    "    ((cudaError_t)__gpuc_occupancy_blocks((n), (const void *)(f), (b), (s)))\n"
    "#undef cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags\n"
    "#define cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(n, f, b, s, flags) \\\n"
    "    ((cudaError_t)__gpuc_occupancy_blocks((n), (const void *)(f), (b), (s)))\n"
    "/* a template of cuda_runtime.h (C++), with its defaults */\n"
    "#define cudaOccupancyMaxPotentialBlockSize(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, __gpuc_ompbs5, __gpuc_ompbs4, __gpuc_ompbs3, , )(__VA_ARGS__)\n"
    "#define __gpuc_ompbs3(g, b, f) __gpuc_ompbs5(g, b, f, 0, 0)\n"
    "#define __gpuc_ompbs4(g, b, f, s) __gpuc_ompbs5(g, b, f, s, 0)\n"
    "#define __gpuc_ompbs5(g, b, f, s, l) \\\n"
    "    ((cudaError_t)__gpuc_occupancy_block_size((g), (b), (const void *)(f), (s), (l)))\n"
    "/* grid and block: a dim3 or an integer, as in C++ */\n"
    "#undef cudaLaunchKernel\n"
    "#define cudaLaunchKernel(...) \\\n"
    "    __gpuc_pick6(__VA_ARGS__, __gpuc_lk6, __gpuc_lk5, __gpuc_lk4, , )(__VA_ARGS__)\n"
    "#define __gpuc_lk4(f, g, b, a) __gpuc_lk(f, g, b, a, 0, 0, 0)\n"
    "#define __gpuc_lk5(f, g, b, a, s) __gpuc_lk(f, g, b, a, s, 0, 0)\n"
    "#define __gpuc_lk6(f, g, b, a, s, st) __gpuc_lk(f, g, b, a, s, st, 0)\n"
    "#undef cudaLaunchCooperativeKernel\n"
    "#define cudaLaunchCooperativeKernel(...) \\\n"
    "    __gpuc_pick6(__VA_ARGS__, __gpuc_lck6, __gpuc_lck5, __gpuc_lck4, , )(__VA_ARGS__)\n"
    "#define __gpuc_lck4(f, g, b, a) __gpuc_lk(f, g, b, a, 0, 0, 1)\n"
    "#define __gpuc_lck5(f, g, b, a, s) __gpuc_lk(f, g, b, a, s, 0, 1)\n"
    "#define __gpuc_lck6(f, g, b, a, s, st) __gpuc_lk(f, g, b, a, s, st, 1)\n"
    "#define __gpuc_lk(f, g, b, a, s, st, coop) ({ \\\n"
    "    __typeof__(g) __gpuc_lk_grid = (g); __typeof__(b) __gpuc_lk_block = (b); \\\n"
    "    (cudaError_t)__gpuc_launch_kernel((const void *)(f), &__gpuc_lk_grid, \\\n"
    "        __gpuc_is_dim3(__gpuc_lk_grid), sizeof __gpuc_lk_grid, &__gpuc_lk_block, \\\n"
    "        __gpuc_is_dim3(__gpuc_lk_block), sizeof __gpuc_lk_block, (void **)(a), (s), \\\n"
    "        (void *)(st), (coop), __LINE__); })\n";

static char source[900]; /* where the declarations came from */

const char *gpu_host_header_source(void)
{
    gpu_host_header(1);
    return source;
}

const char *gpu_host_header(int toolkit)
{
    static char *text[2];
    toolkit = toolkit != 0;
    if (text[toolkit])
        return text[toolkit];
    char *nvidia = toolkit ? gpu_toolkit_header(source, sizeof source) : NULL;
    cm_buf_t b = {0};
    cm_buf_adds(&b, "/* gpuc: the CUDA runtime API for host cells (libcudart, loaded at run time) */\n"
                    "#ifndef GPUC_CUDA_RUNTIME_H\n#define GPUC_CUDA_RUNTIME_H\n#include <stddef.h>\n");
    cm_buf_adds(&b, types);
    cm_buf_adds(&b, nvidia ? nvidia : subset);
    cm_buf_adds(&b, macros);
    cm_buf_adds(&b, "#endif\n");
    free(nvidia);
    text[toolkit] = cm_buf_steal(&b);
    return text[toolkit];
}
