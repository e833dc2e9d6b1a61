package helper

const auditArch = 0xc00000f3 // AUDIT_ARCH_RISCV64
