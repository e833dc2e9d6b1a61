package helper

const auditArch = 0xc00000b7 // AUDIT_ARCH_AARCH64
