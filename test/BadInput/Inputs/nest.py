"""Prints @f with N trace.checkpoint regions nested inside each other (line
k + 1 opens level k)."""
import sys

n = int(sys.argv[1])
out = ["func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {"]
for i in range(n):
    outer = "%x" if i == 0 else "%%i%d" % (i - 1)
    out.append('%%r%d = trace.checkpoint "c%d" ins(%%i%d = %s : tensor<4xf32>)'
               ' -> tensor<4xf32> {' % (i, i, i, outer))
out.append("%%n = trace.neg %%i%d : tensor<4xf32>" % (n - 1))
for i in reversed(range(n)):
    inner = "%n" if i == n - 1 else "%%r%d" % (i + 1)
    out.append("trace.yield %s : tensor<4xf32>" % inner)
    out.append("}")
out.append("return %r0 : tensor<4xf32>")
out.append("}")
print("\n".join(out))
