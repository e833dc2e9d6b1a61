package helper

// System call numbers and the seccomp architecture of linux/amd64.
const (
	auditArch = 0xc000003e // AUDIT_ARCH_X86_64
	x32Bit    = 0x40000000 // __X32_SYSCALL_BIT: x32 calls share the audit arch

	sysIoctl          = 16
	sysSocket         = 41
	sysSocketpair     = 53
	sysClone          = 56
	sysPtrace         = 101
	sysCapset         = 126
	sysPersonality    = 135
	sysPivotRoot      = 155
	sysPrctl          = 157
	sysChroot         = 161
	sysMount          = 165
	sysUmount2        = 166
	sysSwapon         = 167
	sysReboot         = 169
	sysInitModule     = 175
	sysDeleteModule   = 176
	sysKexecLoad      = 246
	sysAddKey         = 248
	sysRequestKey     = 249
	sysKeyctl         = 250
	sysUnshare        = 272
	sysPerfEventOpen  = 298
	sysOpenByHandleAt = 304
	sysSetns          = 308
	sysFinitModule    = 313
	sysSeccomp        = 317
	sysKexecFileLoad  = 320
	sysBpf            = 321
	sysUserfaultfd    = 323
)
