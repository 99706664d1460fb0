//===- consumer-opt.cpp - an opt tool on an installed trace-mlir ----------===//
//
// The trace dialects and passes registered from the installed headers and
// libraries, beside func: enough to parse trace IR and run the trace
// passes (test/Install/install.test).
//
//===----------------------------------------------------------------------===//

#include "trace/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::trace::registerAllTraceDialects(registry);
  registry.insert<mlir::func::FuncDialect>();
  mlir::trace::registerAllTracePasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "trace-mlir consumer (installed)\n", registry));
}
