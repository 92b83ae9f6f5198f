package device

// The opcodes of hados_relational.h: sort, merge, gather and hash join
// over row numbers. The descriptors' Go encoders live beside them
// (sort.go, gather.go, join.go).
const (
	OpSort      Opcode = 17 // Src = hados_sort; Args: first row, end row, limit; Dst = int32 row numbers
	OpMerge     Opcode = 18 // Src = hados_sort; Args: run A, len A, run B, len B; Dst = int32 merged
	OpGather    Opcode = 19 // Src = hados_gather; Args: int32 row numbers, count, hados_project_out
	OpJoinBuild Opcode = 20 // Src = hados_join (build keys); Args[0] = byte budget, Args[1] = parts; Dst = where the state address goes (a part: Args[2] = state, Args[3] = part)
	OpJoinProbe Opcode = 21 // Src = hados_join (probe keys); Args[0] = state, Args[1] = hados_join_out
	OpJoinFree  Opcode = 22 // Src = state
)
