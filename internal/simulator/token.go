package simulator

// RotateToken replaces the accepted token with token, or with a random one
// when token is "", and returns it. The previous token stops working at
// once, as when the customer generates a new one in the app.
func (b *Bank) RotateToken(token string) string {
	if token == "" {
		token = randomToken()
	}
	b.people[0].setToken(token)
	return token
}

// RevokeToken revokes the token: every API request is answered 401 until
// RotateToken. In a household these act on the first person (see
// RevokePersonToken).
func (b *Bank) RevokeToken() { b.people[0].revoke() }
