//go:build arm64 || riscv64

package helper

// System call numbers of the generic table (linux/arm64, linux/riscv64)
// and the seccomp architecture.
const (
	x32Bit = 0 // no x32 on these

	sysIoctl          = 29
	sysUmount2        = 39
	sysMount          = 40
	sysPivotRoot      = 41
	sysChroot         = 51
	sysUnshare        = 97
	sysKexecLoad      = 104
	sysInitModule     = 105
	sysDeleteModule   = 106
	sysPtrace         = 117
	sysReboot         = 142
	sysPrctl          = 167
	sysCapset         = 91
	sysPersonality    = 92
	sysSocket         = 198
	sysSocketpair     = 199
	sysAddKey         = 217
	sysRequestKey     = 218
	sysKeyctl         = 219
	sysClone          = 220
	sysSwapon         = 224
	sysPerfEventOpen  = 241
	sysOpenByHandleAt = 265
	sysSetns          = 268
	sysFinitModule    = 273
	sysSeccomp        = 277
	sysBpf            = 280
	sysUserfaultfd    = 282
	sysKexecFileLoad  = 294
)
