package exec

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/hados-io/hados/operators/scan"
	"github.com/hados-io/hados/operators/types"
	"github.com/hados-io/hados/race/plan"
)

// WarehouseCatalog types the columns of the tables in a warehouse
// directory (dir/<table>/…) from the footer of each table's first Parquet
// file, for importing Spark plans that leave columns untyped: partition
// columns outside a scan's ReadSchema, and the leaves that name no table
// (an EmptyRelation Spark's optimizer left of a scan it proved empty),
// which the catalog types by column name when one table has it. Columns
// whose type hados does not model are left out; a table directory without
// a file is skipped. A file that is not Parquet is an error naming it.
func WarehouseCatalog(dir string) (*plan.Catalog, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("exec: warehouse: %w", err)
	}
	cat := plan.NewCatalog()
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || name[0] == '_' || name[0] == '.' {
			continue
		}
		files, err := scan.TableFiles(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("exec: warehouse table %s: %w", name, err)
		}
		if len(files) == 0 {
			continue
		}
		if err := learnFile(cat, name, files[0]); err != nil {
			return nil, fmt.Errorf("exec: warehouse table %s: %s: %w", name, files[0], err)
		}
	}
	return cat, nil
}

// learnFile adds the columns of one Parquet file's schema to cat.
func learnFile(cat *plan.Catalog, table, path string) error {
	f, err := file.OpenParquetFile(path, false)
	if err != nil {
		return err
	}
	defer f.Close()
	md := f.MetaData()
	as, err := pqarrow.FromParquet(md.Schema, &pqarrow.ArrowReadProperties{}, md.KeyValueMetadata())
	if err != nil {
		return err
	}
	for _, fld := range as.Fields() {
		if t, err := types.FromArrow(fld.Type); err == nil {
			cat.Add(table, fld.Name, t)
		}
	}
	return nil
}
