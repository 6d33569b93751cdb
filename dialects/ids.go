package dialects

// IDSpeller is implemented by codecs whose dialect cannot write every agent
// id as it is (bluelabel's ids are upper case): SpellID returns how the
// dialect writes id. The bridge resolves an id such a dialect names to the
// one agent whose id it spells that way, when no agent has the id itself.
type IDSpeller interface {
	SpellID(id string) string
}
