package schema

import (
	"fmt"
	"slices"

	"github.com/tsbucket/tsbucket/bucket"
)

// CheckLatest checks every latest-value view of views against its source,
// which must be among views: a view that is not itself a latest-value
// view, with the same key columns and ID (names, types and kind), and
// every value column of the latest-value view among the source's, with
// the same type. The source's rows are what a deleted newest item is
// replaced from, so the two must describe the same items.
func CheckLatest(views []View) error {
	byName := map[string]View{}
	for _, v := range views {
		byName[v.Name] = v.WithDefaults()
	}
	for _, v := range views {
		if !v.IsLatest() {
			continue
		}
		if err := checkLatestSource(v.WithDefaults(), byName); err != nil {
			return fmt.Errorf("view %q: latest_of %q: %w", v.Name, v.LatestOf, err)
		}
	}
	return nil
}

func checkLatestSource(v View, byName map[string]View) error {
	src, ok := byName[v.LatestOf]
	switch {
	case !ok:
		return fmt.Errorf("%w: no such view among the views given", ErrBadView)
	case src.IsLatest():
		return fmt.Errorf("%w: the source is itself a latest-value view", ErrBadView)
	case columnsText(src.Key) != columnsText(v.Key):
		return fmt.Errorf("%w: key %s differs from the source's %s", ErrBadView, columnsText(v.Key), columnsText(src.Key))
	case columnsText([]Column{src.ID}) != columnsText([]Column{v.ID}) || kindText(src.Kind) != kindText(v.Kind):
		return fmt.Errorf("%w: id %s (%s) differs from the source's %s (%s)", ErrBadView,
			columnsText([]Column{v.ID}), kindText(v.Kind), columnsText([]Column{src.ID}), kindText(src.Kind))
	}
	for _, c := range v.Values {
		i := slices.IndexFunc(src.Values, func(s Column) bool { return s.Name == c.Name })
		if i < 0 {
			return fmt.Errorf("%w: value column %q is not one of the source's", ErrBadView, c.Name)
		}
		if columnsText([]Column{src.Values[i]}) != columnsText([]Column{c}) {
			return fmt.Errorf("%w: value column %s differs from the source's %s", ErrBadView, columnsText([]Column{c}), columnsText([]Column{src.Values[i]}))
		}
	}
	return nil
}

// kindText is the full text of an ID kind (its parameters too: two
// snowflakes of different epochs are different kinds), "none" for nil.
func kindText(k bucket.Kind) string {
	if k == nil {
		return "none"
	}
	return k.String()
}
