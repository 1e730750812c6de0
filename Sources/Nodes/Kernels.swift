import CKernels
import NodeKit

/// Which build of the inner loops (CKernels) this process runs, for reports: the AVX2+FMA build
/// when the CPU has both, else the portable one; chosen once when the library loads.
public enum Kernels {
    /// "avx2+fma" or "portable".
    public static var selected: String { String(cString: iaa_kernel_set_name(iaa_kernels_selected())) }
}

extension iaa_parameter_ramp {
    /// `ramp` as the kernels read it.
    init(_ ramp: ParameterRamp) {
        self.init(start: ramp.start, step: ramp.step, frames: ramp.rampFrames, end: ramp.end)
    }
}
