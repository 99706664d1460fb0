// The GPT fixture's forward (2 blocks, loss), imported with
//   trace-import examples/models/gpt_nockpt.pt --input-shapes-file examples/models/gpt_nockpt.shapes --dropout-as-identity
// and committed so the PTX tests need no LibTorch.
module {
  func.func @forward(%arg0: tensor<2x16xi64> {trace.name = "idx"}, %arg1: tensor<2x16xi64> {trace.name = "targets"}, %arg2: tensor<64x32xf32> {trace.name = "wte.weight", trace.role = "parameter"}, %arg3: tensor<16x32xf32> {trace.name = "wpe.weight", trace.role = "parameter"}, %arg4: tensor<32xf32> {trace.name = "blocks.0.ln1.weight", trace.role = "parameter"}, %arg5: tensor<32xf32> {trace.name = "blocks.0.ln1.bias", trace.role = "parameter"}, %arg6: tensor<96x32xf32> {trace.name = "blocks.0.attn.qkv.weight", trace.role = "parameter"}, %arg7: tensor<96xf32> {trace.name = "blocks.0.attn.qkv.bias", trace.role = "parameter"}, %arg8: tensor<32x32xf32> {trace.name = "blocks.0.attn.proj.weight", trace.role = "parameter"}, %arg9: tensor<32xf32> {trace.name = "blocks.0.attn.proj.bias", trace.role = "parameter"}, %arg10: tensor<32xf32> {trace.name = "blocks.0.ln2.weight", trace.role = "parameter"}, %arg11: tensor<32xf32> {trace.name = "blocks.0.ln2.bias", trace.role = "parameter"}, %arg12: tensor<128x32xf32> {trace.name = "blocks.0.mlp.fc.weight", trace.role = "parameter"}, %arg13: tensor<128xf32> {trace.name = "blocks.0.mlp.fc.bias", trace.role = "parameter"}, %arg14: tensor<32x128xf32> {trace.name = "blocks.0.mlp.proj.weight", trace.role = "parameter"}, %arg15: tensor<32xf32> {trace.name = "blocks.0.mlp.proj.bias", trace.role = "parameter"}, %arg16: tensor<32xf32> {trace.name = "blocks.1.ln1.weight", trace.role = "parameter"}, %arg17: tensor<32xf32> {trace.name = "blocks.1.ln1.bias", trace.role = "parameter"}, %arg18: tensor<96x32xf32> {trace.name = "blocks.1.attn.qkv.weight", trace.role = "parameter"}, %arg19: tensor<96xf32> {trace.name = "blocks.1.attn.qkv.bias", trace.role = "parameter"}, %arg20: tensor<32x32xf32> {trace.name = "blocks.1.attn.proj.weight", trace.role = "parameter"}, %arg21: tensor<32xf32> {trace.name = "blocks.1.attn.proj.bias", trace.role = "parameter"}, %arg22: tensor<32xf32> {trace.name = "blocks.1.ln2.weight", trace.role = "parameter"}, %arg23: tensor<32xf32> {trace.name = "blocks.1.ln2.bias", trace.role = "parameter"}, %arg24: tensor<128x32xf32> {trace.name = "blocks.1.mlp.fc.weight", trace.role = "parameter"}, %arg25: tensor<128xf32> {trace.name = "blocks.1.mlp.fc.bias", trace.role = "parameter"}, %arg26: tensor<32x128xf32> {trace.name = "blocks.1.mlp.proj.weight", trace.role = "parameter"}, %arg27: tensor<32xf32> {trace.name = "blocks.1.mlp.proj.bias", trace.role = "parameter"}, %arg28: tensor<32xf32> {trace.name = "ln_f.weight", trace.role = "parameter"}, %arg29: tensor<32xf32> {trace.name = "ln_f.bias", trace.role = "parameter"}, %arg30: tensor<64x32xf32> {trace.name = "lm_head.weight", trace.role = "parameter"}, %arg31: tensor<1x1x16x16xf32> {trace.name = "blocks.0.attn.mask", trace.role = "buffer"}, %arg32: tensor<1x1x16x16xf32> {trace.name = "blocks.1.attn.mask", trace.role = "buffer"}) -> tensor<f32> {
    %0 = trace.iota dim = 0 : tensor<16xi64>
    %1 = trace.full 1 : tensor<16xi64>
    %2 = trace.mul %0, %1 : tensor<16xi64>
    %3 = trace.full 0 : tensor<16xi64>
    %4 = trace.add %2, %3 : tensor<16xi64>
    %5 = trace.reshape %arg0 : tensor<2x16xi64> -> tensor<2x16x1xi64>
    %6 = trace.broadcast_in_dim %5, dims = [0, 1, 2] : tensor<2x16x1xi64> -> tensor<2x16x64xi64>
    %7 = trace.iota dim = 2 : tensor<2x16x64xi64>
    %8 = trace.compare eq, %6, %7 : tensor<2x16x64xi64>
    %9 = trace.convert %8 : tensor<2x16x64xi1> -> tensor<2x16x64xf32>
    %10 = trace.reshape %9 : tensor<2x16x64xf32> -> tensor<32x64xf32>
    %11 = trace.matmul %10, %arg2 : tensor<32x64xf32>, tensor<64x32xf32> -> tensor<32x32xf32>
    %wte = trace.reshape %11 {trace.name = "wte"} : tensor<32x32xf32> -> tensor<2x16x32xf32>
    %12 = trace.reshape %4 : tensor<16xi64> -> tensor<16x1xi64>
    %13 = trace.broadcast_in_dim %12, dims = [0, 1] : tensor<16x1xi64> -> tensor<16x16xi64>
    %14 = trace.iota dim = 1 : tensor<16x16xi64>
    %15 = trace.compare eq, %13, %14 : tensor<16x16xi64>
    %16 = trace.convert %15 : tensor<16x16xi1> -> tensor<16x16xf32>
    %wpe = trace.matmul %16, %arg3 {trace.name = "wpe"} : tensor<16x16xf32>, tensor<16x32xf32> -> tensor<16x32xf32>
    %17 = trace.broadcast_in_dim %wpe, dims = [1, 2] : tensor<16x32xf32> -> tensor<2x16x32xf32>
    %drop = trace.add %wte, %17 {trace.name = "drop"} : tensor<2x16x32xf32>
    %18 = trace.reduce_sum %drop dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %19 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %20 = trace.div %18, %19 : tensor<2x16x1xf32>
    %21 = trace.broadcast_in_dim %20, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %22 = trace.sub %drop, %21 : tensor<2x16x32xf32>
    %23 = trace.mul %22, %22 : tensor<2x16x32xf32>
    %24 = trace.reduce_sum %23 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %25 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %26 = trace.div %24, %25 : tensor<2x16x1xf32>
    %27 = trace.full 9.99999974E-6 : tensor<2x16x1xf32>
    %28 = trace.add %26, %27 : tensor<2x16x1xf32>
    %29 = trace.rsqrt %28 : tensor<2x16x1xf32>
    %30 = trace.broadcast_in_dim %29, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %31 = trace.mul %22, %30 : tensor<2x16x32xf32>
    %32 = trace.broadcast_in_dim %arg4, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %33 = trace.mul %31, %32 : tensor<2x16x32xf32>
    %34 = trace.broadcast_in_dim %arg5, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.0.ln1 = trace.add %33, %34 {trace.name = "blocks.0.ln1"} : tensor<2x16x32xf32>
    %35 = trace.transpose %arg6, perm = [1, 0] : tensor<96x32xf32> -> tensor<32x96xf32>
    %36 = trace.reshape %blocks.0.ln1 : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %37 = trace.matmul %36, %35 : tensor<32x32xf32>, tensor<32x96xf32> -> tensor<32x96xf32>
    %38 = trace.reshape %37 : tensor<32x96xf32> -> tensor<2x16x96xf32>
    %39 = trace.broadcast_in_dim %arg7, dims = [2] : tensor<96xf32> -> tensor<2x16x96xf32>
    %blocks.0.attn.qkv = trace.add %38, %39 {trace.name = "blocks.0.attn.qkv"} : tensor<2x16x96xf32>
    %40 = trace.slice %blocks.0.attn.qkv [0:2, 0:16, 0:32] : tensor<2x16x96xf32> -> tensor<2x16x32xf32>
    %41 = trace.slice %blocks.0.attn.qkv [0:2, 0:16, 32:64] : tensor<2x16x96xf32> -> tensor<2x16x32xf32>
    %42 = trace.slice %blocks.0.attn.qkv [0:2, 0:16, 64:96] : tensor<2x16x96xf32> -> tensor<2x16x32xf32>
    %43 = trace.reshape %40 : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
    %44 = trace.transpose %43, perm = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    %45 = trace.reshape %41 : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
    %46 = trace.transpose %45, perm = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    %47 = trace.reshape %42 : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
    %48 = trace.transpose %47, perm = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    %49 = trace.transpose %46, perm = [0, 1, 3, 2] : tensor<2x4x16x8xf32> -> tensor<2x4x8x16xf32>
    %50 = trace.matmul %44, %49 : tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x16x16xf32>
    %51 = trace.full 0.353553385 : tensor<2x4x16x16xf32>
    %52 = trace.mul %50, %51 : tensor<2x4x16x16xf32>
    %53 = trace.full 0.000000e+00 : tensor<1x1x16x16xf32>
    %54 = trace.compare eq, %arg31, %53 : tensor<1x1x16x16xf32>
    %55 = trace.full 0xFF800000 : tensor<f32>
    %56 = trace.broadcast_in_dim %54, dims = [0, 1, 2, 3] : tensor<1x1x16x16xi1> -> tensor<2x4x16x16xi1>
    %57 = trace.broadcast_in_dim %55, dims = [] : tensor<f32> -> tensor<2x4x16x16xf32>
    %58 = trace.select %56, %57, %52 : tensor<2x4x16x16xi1>, tensor<2x4x16x16xf32>
    %59 = trace.reduce_max %58 dims = [3] keepdim : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
    %60 = trace.broadcast_in_dim %59, dims = [0, 1, 2, 3] : tensor<2x4x16x1xf32> -> tensor<2x4x16x16xf32>
    %61 = trace.sub %58, %60 : tensor<2x4x16x16xf32>
    %62 = trace.exp %61 : tensor<2x4x16x16xf32>
    %63 = trace.reduce_sum %62 dims = [3] keepdim : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
    %64 = trace.broadcast_in_dim %63, dims = [0, 1, 2, 3] : tensor<2x4x16x1xf32> -> tensor<2x4x16x16xf32>
    %blocks.0.attn.attn_drop = trace.div %62, %64 {trace.name = "blocks.0.attn.attn_drop"} : tensor<2x4x16x16xf32>
    %65 = trace.matmul %blocks.0.attn.attn_drop, %48 : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
    %66 = trace.transpose %65, perm = [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
    %67 = trace.reshape %66 : tensor<2x16x4x8xf32> -> tensor<2x16x32xf32>
    %68 = trace.transpose %arg8, perm = [1, 0] : tensor<32x32xf32> -> tensor<32x32xf32>
    %69 = trace.reshape %67 : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %70 = trace.matmul %69, %68 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
    %71 = trace.reshape %70 : tensor<32x32xf32> -> tensor<2x16x32xf32>
    %72 = trace.broadcast_in_dim %arg9, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.0.attn.proj = trace.add %71, %72 {trace.name = "blocks.0.attn.proj"} : tensor<2x16x32xf32>
    %73 = trace.add %drop, %blocks.0.attn.proj : tensor<2x16x32xf32>
    %74 = trace.reduce_sum %73 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %75 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %76 = trace.div %74, %75 : tensor<2x16x1xf32>
    %77 = trace.broadcast_in_dim %76, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %78 = trace.sub %73, %77 : tensor<2x16x32xf32>
    %79 = trace.mul %78, %78 : tensor<2x16x32xf32>
    %80 = trace.reduce_sum %79 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %81 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %82 = trace.div %80, %81 : tensor<2x16x1xf32>
    %83 = trace.full 9.99999974E-6 : tensor<2x16x1xf32>
    %84 = trace.add %82, %83 : tensor<2x16x1xf32>
    %85 = trace.rsqrt %84 : tensor<2x16x1xf32>
    %86 = trace.broadcast_in_dim %85, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %87 = trace.mul %78, %86 : tensor<2x16x32xf32>
    %88 = trace.broadcast_in_dim %arg10, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %89 = trace.mul %87, %88 : tensor<2x16x32xf32>
    %90 = trace.broadcast_in_dim %arg11, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.0.ln2 = trace.add %89, %90 {trace.name = "blocks.0.ln2"} : tensor<2x16x32xf32>
    %91 = trace.transpose %arg12, perm = [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
    %92 = trace.reshape %blocks.0.ln2 : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %93 = trace.matmul %92, %91 : tensor<32x32xf32>, tensor<32x128xf32> -> tensor<32x128xf32>
    %94 = trace.reshape %93 : tensor<32x128xf32> -> tensor<2x16x128xf32>
    %95 = trace.broadcast_in_dim %arg13, dims = [2] : tensor<128xf32> -> tensor<2x16x128xf32>
    %blocks.0.mlp.fc = trace.add %94, %95 {trace.name = "blocks.0.mlp.fc"} : tensor<2x16x128xf32>
    %96 = trace.full 5.000000e-01 : tensor<2x16x128xf32>
    %97 = trace.mul %blocks.0.mlp.fc, %96 : tensor<2x16x128xf32>
    %98 = trace.mul %blocks.0.mlp.fc, %blocks.0.mlp.fc : tensor<2x16x128xf32>
    %99 = trace.mul %98, %blocks.0.mlp.fc : tensor<2x16x128xf32>
    %100 = trace.full 4.471500e-02 : tensor<2x16x128xf32>
    %101 = trace.mul %99, %100 : tensor<2x16x128xf32>
    %102 = trace.add %blocks.0.mlp.fc, %101 : tensor<2x16x128xf32>
    %103 = trace.full 0.797884583 : tensor<2x16x128xf32>
    %104 = trace.mul %102, %103 : tensor<2x16x128xf32>
    %105 = trace.tanh %104 : tensor<2x16x128xf32>
    %106 = trace.full 1.000000e+00 : tensor<2x16x128xf32>
    %107 = trace.add %105, %106 : tensor<2x16x128xf32>
    %108 = trace.mul %97, %107 : tensor<2x16x128xf32>
    %109 = trace.transpose %arg14, perm = [1, 0] : tensor<32x128xf32> -> tensor<128x32xf32>
    %110 = trace.reshape %108 : tensor<2x16x128xf32> -> tensor<32x128xf32>
    %111 = trace.matmul %110, %109 : tensor<32x128xf32>, tensor<128x32xf32> -> tensor<32x32xf32>
    %112 = trace.reshape %111 : tensor<32x32xf32> -> tensor<2x16x32xf32>
    %113 = trace.broadcast_in_dim %arg15, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.0.mlp.proj = trace.add %112, %113 {trace.name = "blocks.0.mlp.proj"} : tensor<2x16x32xf32>
    %blocks.0 = trace.add %73, %blocks.0.mlp.proj {trace.name = "blocks.0"} : tensor<2x16x32xf32>
    %114 = trace.reduce_sum %blocks.0 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %115 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %116 = trace.div %114, %115 : tensor<2x16x1xf32>
    %117 = trace.broadcast_in_dim %116, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %118 = trace.sub %blocks.0, %117 : tensor<2x16x32xf32>
    %119 = trace.mul %118, %118 : tensor<2x16x32xf32>
    %120 = trace.reduce_sum %119 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %121 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %122 = trace.div %120, %121 : tensor<2x16x1xf32>
    %123 = trace.full 9.99999974E-6 : tensor<2x16x1xf32>
    %124 = trace.add %122, %123 : tensor<2x16x1xf32>
    %125 = trace.rsqrt %124 : tensor<2x16x1xf32>
    %126 = trace.broadcast_in_dim %125, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %127 = trace.mul %118, %126 : tensor<2x16x32xf32>
    %128 = trace.broadcast_in_dim %arg16, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %129 = trace.mul %127, %128 : tensor<2x16x32xf32>
    %130 = trace.broadcast_in_dim %arg17, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.1.ln1 = trace.add %129, %130 {trace.name = "blocks.1.ln1"} : tensor<2x16x32xf32>
    %131 = trace.transpose %arg18, perm = [1, 0] : tensor<96x32xf32> -> tensor<32x96xf32>
    %132 = trace.reshape %blocks.1.ln1 : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %133 = trace.matmul %132, %131 : tensor<32x32xf32>, tensor<32x96xf32> -> tensor<32x96xf32>
    %134 = trace.reshape %133 : tensor<32x96xf32> -> tensor<2x16x96xf32>
    %135 = trace.broadcast_in_dim %arg19, dims = [2] : tensor<96xf32> -> tensor<2x16x96xf32>
    %blocks.1.attn.qkv = trace.add %134, %135 {trace.name = "blocks.1.attn.qkv"} : tensor<2x16x96xf32>
    %136 = trace.slice %blocks.1.attn.qkv [0:2, 0:16, 0:32] : tensor<2x16x96xf32> -> tensor<2x16x32xf32>
    %137 = trace.slice %blocks.1.attn.qkv [0:2, 0:16, 32:64] : tensor<2x16x96xf32> -> tensor<2x16x32xf32>
    %138 = trace.slice %blocks.1.attn.qkv [0:2, 0:16, 64:96] : tensor<2x16x96xf32> -> tensor<2x16x32xf32>
    %139 = trace.reshape %136 : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
    %140 = trace.transpose %139, perm = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    %141 = trace.reshape %137 : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
    %142 = trace.transpose %141, perm = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    %143 = trace.reshape %138 : tensor<2x16x32xf32> -> tensor<2x16x4x8xf32>
    %144 = trace.transpose %143, perm = [0, 2, 1, 3] : tensor<2x16x4x8xf32> -> tensor<2x4x16x8xf32>
    %145 = trace.transpose %142, perm = [0, 1, 3, 2] : tensor<2x4x16x8xf32> -> tensor<2x4x8x16xf32>
    %146 = trace.matmul %140, %145 : tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x16x16xf32>
    %147 = trace.full 0.353553385 : tensor<2x4x16x16xf32>
    %148 = trace.mul %146, %147 : tensor<2x4x16x16xf32>
    %149 = trace.full 0.000000e+00 : tensor<1x1x16x16xf32>
    %150 = trace.compare eq, %arg32, %149 : tensor<1x1x16x16xf32>
    %151 = trace.full 0xFF800000 : tensor<f32>
    %152 = trace.broadcast_in_dim %150, dims = [0, 1, 2, 3] : tensor<1x1x16x16xi1> -> tensor<2x4x16x16xi1>
    %153 = trace.broadcast_in_dim %151, dims = [] : tensor<f32> -> tensor<2x4x16x16xf32>
    %154 = trace.select %152, %153, %148 : tensor<2x4x16x16xi1>, tensor<2x4x16x16xf32>
    %155 = trace.reduce_max %154 dims = [3] keepdim : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
    %156 = trace.broadcast_in_dim %155, dims = [0, 1, 2, 3] : tensor<2x4x16x1xf32> -> tensor<2x4x16x16xf32>
    %157 = trace.sub %154, %156 : tensor<2x4x16x16xf32>
    %158 = trace.exp %157 : tensor<2x4x16x16xf32>
    %159 = trace.reduce_sum %158 dims = [3] keepdim : tensor<2x4x16x16xf32> -> tensor<2x4x16x1xf32>
    %160 = trace.broadcast_in_dim %159, dims = [0, 1, 2, 3] : tensor<2x4x16x1xf32> -> tensor<2x4x16x16xf32>
    %blocks.1.attn.attn_drop = trace.div %158, %160 {trace.name = "blocks.1.attn.attn_drop"} : tensor<2x4x16x16xf32>
    %161 = trace.matmul %blocks.1.attn.attn_drop, %144 : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
    %162 = trace.transpose %161, perm = [0, 2, 1, 3] : tensor<2x4x16x8xf32> -> tensor<2x16x4x8xf32>
    %163 = trace.reshape %162 : tensor<2x16x4x8xf32> -> tensor<2x16x32xf32>
    %164 = trace.transpose %arg20, perm = [1, 0] : tensor<32x32xf32> -> tensor<32x32xf32>
    %165 = trace.reshape %163 : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %166 = trace.matmul %165, %164 : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
    %167 = trace.reshape %166 : tensor<32x32xf32> -> tensor<2x16x32xf32>
    %168 = trace.broadcast_in_dim %arg21, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.1.attn.proj = trace.add %167, %168 {trace.name = "blocks.1.attn.proj"} : tensor<2x16x32xf32>
    %169 = trace.add %blocks.0, %blocks.1.attn.proj : tensor<2x16x32xf32>
    %170 = trace.reduce_sum %169 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %171 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %172 = trace.div %170, %171 : tensor<2x16x1xf32>
    %173 = trace.broadcast_in_dim %172, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %174 = trace.sub %169, %173 : tensor<2x16x32xf32>
    %175 = trace.mul %174, %174 : tensor<2x16x32xf32>
    %176 = trace.reduce_sum %175 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %177 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %178 = trace.div %176, %177 : tensor<2x16x1xf32>
    %179 = trace.full 9.99999974E-6 : tensor<2x16x1xf32>
    %180 = trace.add %178, %179 : tensor<2x16x1xf32>
    %181 = trace.rsqrt %180 : tensor<2x16x1xf32>
    %182 = trace.broadcast_in_dim %181, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %183 = trace.mul %174, %182 : tensor<2x16x32xf32>
    %184 = trace.broadcast_in_dim %arg22, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %185 = trace.mul %183, %184 : tensor<2x16x32xf32>
    %186 = trace.broadcast_in_dim %arg23, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.1.ln2 = trace.add %185, %186 {trace.name = "blocks.1.ln2"} : tensor<2x16x32xf32>
    %187 = trace.transpose %arg24, perm = [1, 0] : tensor<128x32xf32> -> tensor<32x128xf32>
    %188 = trace.reshape %blocks.1.ln2 : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %189 = trace.matmul %188, %187 : tensor<32x32xf32>, tensor<32x128xf32> -> tensor<32x128xf32>
    %190 = trace.reshape %189 : tensor<32x128xf32> -> tensor<2x16x128xf32>
    %191 = trace.broadcast_in_dim %arg25, dims = [2] : tensor<128xf32> -> tensor<2x16x128xf32>
    %blocks.1.mlp.fc = trace.add %190, %191 {trace.name = "blocks.1.mlp.fc"} : tensor<2x16x128xf32>
    %192 = trace.full 5.000000e-01 : tensor<2x16x128xf32>
    %193 = trace.mul %blocks.1.mlp.fc, %192 : tensor<2x16x128xf32>
    %194 = trace.full 0.707106769 : tensor<2x16x128xf32>
    %195 = trace.mul %blocks.1.mlp.fc, %194 : tensor<2x16x128xf32>
    %196 = trace.erf %195 : tensor<2x16x128xf32>
    %197 = trace.full 1.000000e+00 : tensor<2x16x128xf32>
    %198 = trace.add %196, %197 : tensor<2x16x128xf32>
    %199 = trace.mul %193, %198 : tensor<2x16x128xf32>
    %200 = trace.transpose %arg26, perm = [1, 0] : tensor<32x128xf32> -> tensor<128x32xf32>
    %201 = trace.reshape %199 : tensor<2x16x128xf32> -> tensor<32x128xf32>
    %202 = trace.matmul %201, %200 : tensor<32x128xf32>, tensor<128x32xf32> -> tensor<32x32xf32>
    %203 = trace.reshape %202 : tensor<32x32xf32> -> tensor<2x16x32xf32>
    %204 = trace.broadcast_in_dim %arg27, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %blocks.1.mlp.proj = trace.add %203, %204 {trace.name = "blocks.1.mlp.proj"} : tensor<2x16x32xf32>
    %blocks.1 = trace.add %169, %blocks.1.mlp.proj {trace.name = "blocks.1"} : tensor<2x16x32xf32>
    %205 = trace.reduce_sum %blocks.1 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %206 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %207 = trace.div %205, %206 : tensor<2x16x1xf32>
    %208 = trace.broadcast_in_dim %207, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %209 = trace.sub %blocks.1, %208 : tensor<2x16x32xf32>
    %210 = trace.mul %209, %209 : tensor<2x16x32xf32>
    %211 = trace.reduce_sum %210 dims = [2] keepdim : tensor<2x16x32xf32> -> tensor<2x16x1xf32>
    %212 = trace.full 3.200000e+01 : tensor<2x16x1xf32>
    %213 = trace.div %211, %212 : tensor<2x16x1xf32>
    %214 = trace.full 9.99999974E-6 : tensor<2x16x1xf32>
    %215 = trace.add %213, %214 : tensor<2x16x1xf32>
    %216 = trace.rsqrt %215 : tensor<2x16x1xf32>
    %217 = trace.broadcast_in_dim %216, dims = [0, 1, 2] : tensor<2x16x1xf32> -> tensor<2x16x32xf32>
    %218 = trace.mul %209, %217 : tensor<2x16x32xf32>
    %219 = trace.broadcast_in_dim %arg28, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %220 = trace.mul %218, %219 : tensor<2x16x32xf32>
    %221 = trace.broadcast_in_dim %arg29, dims = [2] : tensor<32xf32> -> tensor<2x16x32xf32>
    %ln_f = trace.add %220, %221 {trace.name = "ln_f"} : tensor<2x16x32xf32>
    %222 = trace.transpose %arg30, perm = [1, 0] : tensor<64x32xf32> -> tensor<32x64xf32>
    %223 = trace.reshape %ln_f : tensor<2x16x32xf32> -> tensor<32x32xf32>
    %224 = trace.matmul %223, %222 : tensor<32x32xf32>, tensor<32x64xf32> -> tensor<32x64xf32>
    %lm_head = trace.reshape %224 {trace.name = "lm_head"} : tensor<32x64xf32> -> tensor<2x16x64xf32>
    %225 = trace.reshape %lm_head : tensor<2x16x64xf32> -> tensor<32x64xf32>
    %226 = trace.reshape %arg1 : tensor<2x16xi64> -> tensor<32xi64>
    %227 = trace.reduce_max %225 dims = [1] keepdim : tensor<32x64xf32> -> tensor<32x1xf32>
    %228 = trace.broadcast_in_dim %227, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x64xf32>
    %229 = trace.sub %225, %228 : tensor<32x64xf32>
    %230 = trace.exp %229 : tensor<32x64xf32>
    %231 = trace.reduce_sum %230 dims = [1] keepdim : tensor<32x64xf32> -> tensor<32x1xf32>
    %232 = trace.log %231 : tensor<32x1xf32>
    %233 = trace.broadcast_in_dim %232, dims = [0, 1] : tensor<32x1xf32> -> tensor<32x64xf32>
    %234 = trace.sub %229, %233 : tensor<32x64xf32>
    %235 = trace.reshape %226 : tensor<32xi64> -> tensor<32x1xi64>
    %236 = trace.broadcast_in_dim %235, dims = [0, 1] : tensor<32x1xi64> -> tensor<32x64xi64>
    %237 = trace.iota dim = 1 : tensor<32x64xi64>
    %238 = trace.compare eq, %236, %237 : tensor<32x64xi64>
    %239 = trace.convert %238 : tensor<32x64xi1> -> tensor<32x64xf32>
    %240 = trace.mul %234, %239 : tensor<32x64xf32>
    %241 = trace.reduce_sum %240 dims = [1] : tensor<32x64xf32> -> tensor<32xf32>
    %242 = trace.full -100 : tensor<32xi64>
    %243 = trace.compare ne, %226, %242 : tensor<32xi64>
    %244 = trace.neg %241 : tensor<32xf32>
    %245 = trace.full 0.000000e+00 : tensor<32xf32>
    %246 = trace.select %243, %244, %245 : tensor<32xi1>, tensor<32xf32>
    %247 = trace.reduce_sum %246 dims = [0] : tensor<32xf32> -> tensor<f32>
    %248 = trace.convert %243 : tensor<32xi1> -> tensor<32xf32>
    %249 = trace.reduce_sum %248 dims = [0] : tensor<32xf32> -> tensor<f32>
    %250 = trace.div %247, %249 : tensor<f32>
    return %250 : tensor<f32>
  }
}

