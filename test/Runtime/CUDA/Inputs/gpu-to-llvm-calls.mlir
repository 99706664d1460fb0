// Host GPU ops the GPU pipeline does not emit yet but gpu-to-llvm lowers to
// runtime calls: set_default_device, memset (32 and 16 bit), a join of two
// streams (events), a host-shared allocation.
module attributes {gpu.container_module} {
  func.func @events() {
    %c0 = arith.constant 0 : i32
    %h = arith.constant 0 : i16
    gpu.set_default_device %c0
    %t0 = gpu.wait async
    %m, %t1 = gpu.alloc async [%t0] () : memref<256xi32>
    %t2 = gpu.memset async [%t1] %m, %c0 : memref<256xi32>, i32
    %u0 = gpu.wait async
    %k, %u1 = gpu.alloc async [%u0] () : memref<256xi16>
    %u2 = gpu.memset async [%u1] %k, %h : memref<256xi16>, i16
    %j = gpu.wait async [%t2, %u2]
    %t3 = gpu.dealloc async [%j] %m : memref<256xi32>
    %t4 = gpu.dealloc async [%t3] %k : memref<256xi16>
    gpu.wait [%t4]
    %s = gpu.alloc host_shared () : memref<4xf32>
    return
  }
}
