package bucket

// CQLForm is the Go form a driver binds an ID in, for the CQL type that
// stores it.
type CQLForm int8

const (
	// FormBigint is the ID's low 8 bytes as an int64 (CQL bigint).
	FormBigint CQLForm = iota + 1
	// FormUUID is the 16 bytes as a UUID (CQL uuid and timeuuid).
	FormUUID
	// FormBlob is the 16 bytes as a byte slice (CQL blob, which compares
	// bytewise).
	FormBlob
)

// CQLMapping is how IDs of one kind family are stored in CQL: the column
// type that orders them as the kind does, and the form a value of it takes.
type CQLMapping struct {
	// Family is the kind's Name.
	Family string
	// Type is the CQL type of the ID column.
	Type string
	// Form is the Go form the driver binds a value of Type in.
	Form CQLForm
}

// cqlMappings is the table every package reads an ID kind's CQL storage
// from (schema for column types and their validation, repo for the values
// it binds): adding a kind adds its row here. A blob compares bytewise,
// which is the order of ULIDs and Timestamps.
var cqlMappings = [...]CQLMapping{
	{Family: "snowflake", Type: "bigint", Form: FormBigint},
	{Family: "timeuuid", Type: "timeuuid", Form: FormUUID},
	{Family: "uuidv7", Type: "uuid", Form: FormUUID},
	{Family: "ulid", Type: "blob", Form: FormBlob},
	{Family: "timestamp", Type: "blob", Form: FormBlob},
}

// CQLOf returns how IDs of kind k are stored in CQL; false for a nil kind
// or one the table does not know.
func CQLOf(k Kind) (CQLMapping, bool) {
	if k == nil {
		return CQLMapping{}, false
	}
	name := k.Name()
	for _, m := range cqlMappings {
		if m.Family == name {
			return m, true
		}
	}
	return CQLMapping{}, false
}
