// gather -> a linalg.generic over the result (the indices' shape) whose
// body clamps the index into [0, size) and reads the captured operand with
// tensor.extract.
// scatter_add -> scf.for loops over the indices carrying the result: a
// tensor.extract of the index and the update, the update zeroed and the
// index set to 0 when out of range, then a tensor.extract and a
// tensor.insert of the sum (bufferized in place). With scatters=dense, one
// linalg.generic reducing over the indices' indexed dim into the part of
// the base the indices reach (extract_slice / insert_slice).
// stop_gradient -> its operand.
// RUN: trace-opt %s --trace-to-linalg --split-input-file | FileCheck %s
// RUN: trace-opt %s --trace-to-linalg=scatters=dense --split-input-file | FileCheck %s --check-prefix=DENSE
// RUN: not trace-opt %s --trace-to-linalg=scatters=atomic --split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: for the --scatters option: Cannot find option named 'atomic'!

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @gather
// CHECK-SAME: (%[[X:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<3x4xi64>)
// CHECK:      %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<3x4xi64>) outs(%[[E]] : tensor<3x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK-DAG:    %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:    %[[C9:.*]] = arith.constant 9 : index
// CHECK:        %[[IX:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK-NEXT:   %[[LO:.*]] = arith.maxsi %[[IX]], %[[C0]] : index
// CHECK-NEXT:   %[[AT:.*]] = arith.minsi %[[LO]], %[[C9]] : index
// CHECK-NEXT:   %[[J:.*]] = linalg.index 1 : index
// CHECK-NEXT:   %[[V:.*]] = tensor.extract %[[X]][%[[AT]], %[[J]]] : tensor<10x4xf32>
// CHECK-NEXT:   linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<10x4xf32>, %i: tensor<3x4xi64>) -> tensor<3x4xf32> {
  %r = trace.gather %x[%i] dim = 0 : tensor<10x4xf32>, tensor<3x4xi64> -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// CHECK-LABEL: func @scatter
// CHECK-SAME: (%[[B:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<3x2xi32>, %[[U:.*]]: tensor<3x2xf32>)
// CHECK:      %[[R:.*]] = scf.for %[[A:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUTER:.*]] = %[[B]]) -> (tensor<10x4xf32>)
// CHECK-NEXT:   scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[OUTER]]) -> (tensor<10x4xf32>)
// CHECK-NEXT:     %[[RAW:.*]] = tensor.extract %[[I]][%[[A]], %[[C]]] : tensor<3x2xi32>
// CHECK-NEXT:     %[[UPD:.*]] = tensor.extract %[[U]][%[[A]], %[[C]]] : tensor<3x2xf32>
// CHECK-NEXT:     %[[IX:.*]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK:          %[[GE:.*]] = arith.cmpi sge, %[[IX]]
// CHECK-NEXT:     %[[LT:.*]] = arith.cmpi slt, %[[IX]]
// CHECK-NEXT:     %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK:          %[[KEPT:.*]] = arith.select %[[OK]], %[[UPD]], %{{.*}} : f32
// CHECK-NEXT:     %[[AT:.*]] = arith.select %[[OK]], %[[IX]], %{{.*}} : index
// CHECK-NEXT:     %[[OLD:.*]] = tensor.extract %[[ACC]][%[[AT]], %[[C]]] : tensor<10x4xf32>
// CHECK-NEXT:     %[[SUM:.*]] = arith.addf %[[OLD]], %[[KEPT]] : f32
// CHECK-NEXT:     %[[NEW:.*]] = tensor.insert %[[SUM]] into %[[ACC]][%[[AT]], %[[C]]] : tensor<10x4xf32>
// CHECK-NEXT:     scf.yield %[[NEW]] : tensor<10x4xf32>
// CHECK-NOT:  trace.
// CHECK:      return %[[R]] : tensor<10x4xf32>

// DENSE-DAG: #[[READ:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// DENSE-DAG: #[[WRITE:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// DENSE-LABEL: func @scatter
// DENSE-SAME: (%[[B:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<3x2xi32>, %[[U:.*]]: tensor<3x2xf32>)
// DENSE:      %[[PART:.*]] = tensor.extract_slice %[[B]][0, 0] [10, 2] [1, 1] : tensor<10x4xf32> to tensor<10x2xf32>
// DENSE-NEXT: %[[S:.*]] = linalg.generic {indexing_maps = [#[[READ]], #[[READ]], #[[WRITE]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[I]], %[[U]] : tensor<3x2xi32>, tensor<3x2xf32>) outs(%[[PART]] : tensor<10x2xf32>)
// DENSE-NEXT: ^bb0(%[[IN:.*]]: i32, %[[UPD:.*]]: f32, %[[ACC:.*]]: f32):
// DENSE-NEXT:   %[[IX:.*]] = arith.index_cast %[[IN]] : i32 to index
// DENSE-NEXT:   %[[HERE:.*]] = linalg.index 0 : index
// DENSE-NEXT:   %[[HIT:.*]] = arith.cmpi eq, %[[IX]], %[[HERE]] : index
// DENSE:        %[[KEPT:.*]] = arith.select %[[HIT]], %[[UPD]], %{{.*}} : f32
// DENSE-NEXT:   %[[SUM:.*]] = arith.addf %[[ACC]], %[[KEPT]] : f32
// DENSE-NEXT:   linalg.yield %[[SUM]] : f32
// DENSE:      %[[R:.*]] = tensor.insert_slice %[[S]] into %[[B]][0, 0] [10, 2] [1, 1] : tensor<10x2xf32> into tensor<10x4xf32>
// DENSE:      return %[[R]] : tensor<10x4xf32>
func.func @scatter(%b: tensor<10x4xf32>, %i: tensor<3x2xi32>, %u: tensor<3x2xf32>) -> tensor<10x4xf32> {
  %r = trace.scatter_add %u into %b[%i] dim = 0 : tensor<3x2xf32>, tensor<3x2xi32> -> tensor<10x4xf32>
  %d = trace.stop_gradient %r : tensor<10x4xf32>
  return %d : tensor<10x4xf32>
}

// -----

// trace.optimization_barrier -> its operand (the export format holds no
// trace ops); with keep-barriers it stays, for the pipelines' CSE.
// RUN: trace-opt %s --trace-to-linalg=keep-barriers --split-input-file | FileCheck %s --check-prefix=KEEP
// CHECK-LABEL: func @barrier
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
// KEEP-LABEL: func @barrier
// KEEP-NEXT: %[[B:.*]] = trace.optimization_barrier %{{.*}} : tensor<4xf32>
// KEEP-NEXT: return %[[B]] : tensor<4xf32>
func.func @barrier(%x: tensor<4xf32>) -> tensor<4xf32> {
  %b = trace.optimization_barrier %x : tensor<4xf32>
  return %b : tensor<4xf32>
}
