import CKernels

/// Which build of the inner loops (CKernels) this process runs, for reports: the AVX2+FMA build
/// when the CPU has both, else the portable one; chosen once when the library loads.
public enum Kernels {
    /// "avx2+fma" or "portable".
    public static var selected: String { String(cString: iaa_kernel_set_name(iaa_kernels_selected())) }
}
