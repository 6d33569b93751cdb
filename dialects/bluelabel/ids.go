package bluelabel

// SpellID returns id as bluelabel writes it: upper case, with the
// characters its id pattern lacks replaced by "_" (dialects.IDSpeller).
func (c *Codec) SpellID(id string) string { return normalID(id, 0) }
