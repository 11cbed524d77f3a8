/* gpu_header: the C declarations host cells see for the CUDA runtime API.
 *
 * Host cells call the real libcudart (loaded RTLD_GLOBAL by
 * gpu_runtime_load); this header only declares what tutorial code uses, in
 * C, without cuda_runtime.h (C++ and version-dependent). Deliberate
 * differences from NVIDIA's header:
 * - cudaMalloc, cudaMallocManaged and cudaMallocHost take `void *` first, so
 *   C code passing `float **` compiles without a cast or warning (the ABI is
 *   the same pointer).
 * - dim3 is a plain C struct; write `dim3 b = {16, 16, 1};` (no constructor
 *   defaults in C: give all three).
 * - cudaDeviceProp is gpuc's own struct of the common fields (the layout of
 *   GPU_DEVICE_PROPS_FIELDS in gpu.h, stringified below so the two cannot
 *   drift) and cudaGetDeviceProperties is gpu_device_properties, because
 *   NVIDIA's struct changes between CUDA 12 and 13.
 * - NVIDIA's default arguments are macros that fill the last argument in
 *   (cudaEventRecord(e), cudaMallocManaged(&p, n), cudaMemcpyAsync(d, s, n,
 *   kind)), as C has no default arguments.
 * The error and enum values were checked against CUDA 13.0's
 * driver_types.h. */
#include "gpu.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char gpu_host_header[] =
    "/* gpuc: the CUDA runtime API for host cells (libcudart, loaded at run time) */\n"
    "#ifndef GPUC_CUDA_RUNTIME_H\n"
    "#define GPUC_CUDA_RUNTIME_H\n"
    "#include <stddef.h>\n"
    "typedef enum cudaError {\n"
    "    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,\n"
    "    cudaErrorInitializationError = 3, cudaErrorCudartUnloading = 4,\n"
    "    cudaErrorInvalidConfiguration = 9, cudaErrorInvalidDevicePointer = 17,\n"
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
    "typedef struct dim3 { unsigned int x, y, z; } dim3;\n"
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
    "struct cudaDeviceProp { " STR(GPU_DEVICE_PROPS_FIELDS) " };\n"
    "typedef struct cudaDeviceProp cudaDeviceProp;\n"
    "#define cudaGetDeviceProperties(prop, device) \\\n"
    "    ((cudaError_t)gpu_device_properties((prop), (device)))\n"
    "/* gpuc keeps a list of what cudaMalloc gave, so that a lost GPU context\n"
    " * can say what was lost, and says why an allocation failed */\n"
    "#define cudaMalloc(ptr, size) __gpuc_cuda_malloc((ptr), (size), #ptr, __LINE__)\n"
    "#define cudaFree(ptr) __gpuc_cuda_free(ptr)\n"
    "/* the default arguments of NVIDIA's C++ header, for C: a call may leave\n"
    " * the last argument out (cudaEventRecord(start)) */\n"
    "#define __gpuc_pick3(a, b, c, name, ...) name\n"
    "#define __gpuc_pick4(a, b, c, d, name, ...) name\n"
    "#define __gpuc_pick5(a, b, c, d, e, name, ...) name\n"
    "#define cudaEventRecord(...) \\\n"
    "    __gpuc_pick3(__VA_ARGS__, , (cudaEventRecord), __gpuc_event_record1, )(__VA_ARGS__)\n"
    "#define __gpuc_event_record1(e) (cudaEventRecord)((e), (cudaStream_t)0)\n"
    "#define cudaMallocManaged(...) \\\n"
    "    __gpuc_pick4(__VA_ARGS__, , (cudaMallocManaged), __gpuc_managed2, , )(__VA_ARGS__)\n"
    "#define __gpuc_managed2(p, n) (cudaMallocManaged)((p), (n), cudaMemAttachGlobal)\n"
    "#define cudaMemcpyAsync(...) \\\n"
    "    __gpuc_pick5(__VA_ARGS__, (cudaMemcpyAsync), __gpuc_memcpy_async4, , , )(__VA_ARGS__)\n"
    "#define __gpuc_memcpy_async4(d, s, n, k) (cudaMemcpyAsync)((d), (s), (n), (k), (cudaStream_t)0)\n"
    "#endif\n";
