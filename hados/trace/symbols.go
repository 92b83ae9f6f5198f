package trace

import (
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"fmt"
)

// goOffsets finds functions in a Go binary's pclntab, which survives
// stripping (-ldflags=-s, as go test and most release builds do), and
// returns their file offsets for uprobes.
func goOffsets(path string, names []string) (map[string]uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	pcln, text := f.Section(".gopclntab"), f.Section(".text")
	if pcln == nil || text == nil {
		return nil, fmt.Errorf("%s has no Go symbol table (.gopclntab)", path)
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, err
	}
	start, err := textStart(f, pcln.Addr)
	if err != nil {
		return nil, err
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, start))
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, name := range names {
		fn := tab.LookupFunc(name)
		if fn == nil {
			continue
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Vaddr <= fn.Entry && fn.Entry < p.Vaddr+p.Memsz {
				out[name] = fn.Entry - p.Vaddr + p.Off
				break
			}
		}
	}
	return out, nil
}

// textStart finds runtime.text, the base of the pclntab's function
// offsets. It is not always .text's start: with cgo, external linking puts
// C code first. The runtime's module data (in .noptrdata) begins with a
// pointer to the pclntab header and holds text at a fixed offset (Go 1.18
// and later: pcHeader, six slices, findfunctab, minpc, maxpc, text); Go
// 1.26 keeps it in its own .go.module section.
func textStart(f *elf.File, pclnAddr uint64) (uint64, error) {
	const textOff = 8 + 6*24 + 8 + 8 + 8
	for _, name := range []string{".go.module", ".noptrdata", ".data"} {
		sec := f.Section(name)
		if sec == nil {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		for i := 0; i+textOff+8 <= len(data); i += 8 {
			if binary.LittleEndian.Uint64(data[i:]) != pclnAddr {
				continue
			}
			minpc := binary.LittleEndian.Uint64(data[i+textOff-16:])
			text := binary.LittleEndian.Uint64(data[i+textOff:])
			if text != 0 && text == minpc {
				return text, nil
			}
		}
	}
	return 0, fmt.Errorf("runtime module data not found")
}
