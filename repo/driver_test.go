package repo

import (
	"reflect"

	"github.com/gocql/gocql"
)

// nativeType is gocql.NewNativeType(4, t) for whichever driver the build
// uses: upstream gocql takes (proto, type, custom) and the ScyllaDB fork
// (used through go.scylla.mod) takes (proto, type). A direct call compiles
// with only one of them, so tests build it through reflection.
func nativeType(t gocql.Type) gocql.TypeInfo {
	f := reflect.ValueOf(gocql.NewNativeType)
	args := []reflect.Value{reflect.ValueOf(byte(4)).Convert(f.Type().In(0)), reflect.ValueOf(t)}
	if f.Type().NumIn() == 3 {
		args = append(args, reflect.ValueOf(""))
	}
	return f.Call(args)[0].Interface().(gocql.TypeInfo)
}
