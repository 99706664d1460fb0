; What a runtime copied from before MLIR 22 defines: mgpuModuleLoad without
; the size and mgpuMemAlloc with a bool. check_abi.py must reject it.
define ptr @mgpuModuleLoad(ptr noundef %0) {
  ret ptr null
}
define ptr @mgpuMemAlloc(i64 noundef %0, ptr noundef %1, i1 noundef zeroext %2) {
  ret ptr null
}
