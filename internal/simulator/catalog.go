package simulator

// Static reference data: the real bank's category tree, merchants per
// category, foreign currencies, tags and people.

// categoryTree is the two-level category tree (ids and names as the real
// bank's). Parents come first in each group.
var categoryTree = []struct {
	id, name string
	children [][2]string
}{
	{"good-life", "Good Life", [][2]string{
		{"games-and-software", "Apps, Games & Software"},
		{"booze", "Booze"},
		{"events-and-gigs", "Events & Gigs"},
		{"hobbies", "Hobbies"},
		{"holidays-and-travel", "Holidays & Travel"},
		{"lottery-and-gambling", "Lottery & Gambling"},
		{"pubs-and-bars", "Pubs & Bars"},
		{"restaurants-and-cafes", "Restaurants & Cafes"},
		{"takeaway", "Takeaway"},
		{"tobacco-and-vaping", "Tobacco & Vaping"},
		{"tv-and-music", "TV, Music & Streaming"},
		{"adult", "Adult"},
	}},
	{"home", "Home", [][2]string{
		{"groceries", "Groceries"},
		{"homeware-and-appliances", "Homeware & Appliances"},
		{"internet", "Internet"},
		{"home-maintenance-and-improvements", "Maintenance & Improvements"},
		{"pets", "Pets"},
		{"home-insurance-and-rates", "Rates & Insurance"},
		{"rent-and-mortgage", "Rent & Mortgage"},
		{"utilities", "Utilities"},
	}},
	{"personal", "Personal", [][2]string{
		{"family", "Children & Family"},
		{"clothing-and-accessories", "Clothing & Accessories"},
		{"education-and-student-loans", "Education & Student Loans"},
		{"fitness-and-wellbeing", "Fitness & Wellbeing"},
		{"gifts-and-charity", "Gifts & Charity"},
		{"hair-and-beauty", "Hair & Beauty"},
		{"health-and-medical", "Health & Medical"},
		{"investments", "Investments"},
		{"life-admin", "Life Admin"},
		{"mobile-phone", "Mobile Phone"},
		{"news-magazines-and-books", "News, Magazines & Books"},
		{"technology", "Technology"},
	}},
	{"transport", "Transport", [][2]string{
		{"car-insurance-and-maintenance", "Car Insurance, Rego & Maintenance"},
		{"cycling", "Cycling"},
		{"fuel", "Fuel"},
		{"parking", "Parking"},
		{"public-transport", "Public Transport"},
		{"car-repayments", "Repayments"},
		{"taxis-and-share-cars", "Taxis & Share Cars"},
		{"toll-roads", "Tolls"},
	}},
}

// merchant is a payee for card purchases and direct debits.
type merchant struct {
	name     string
	raw      string // rawText as the card network sends it
	category string // child category id
	min, max int64  // AUD cents, positive
	weight   int    // relative frequency
	debit    bool   // paid by direct debit rather than by card
	online   bool   // may be charged in a foreign currency
}

var merchants = []merchant{
	{"Woolworths", "WOOLWORTHS 3321 FITZROY", "groceries", 1500, 18000, 40, false, false},
	{"Coles", "COLES 0785 RICHMOND", "groceries", 900, 15000, 35, false, false},
	{"Aldi", "ALDI STORES - PRESTON", "groceries", 1200, 11000, 15, false, false},
	{"Harris Farm Markets", "HARRIS FARM MKTS BONDI", "groceries", 800, 9000, 6, false, false},
	{"Market Lane Coffee", "SQ *MARKET LANE COFFEE MELBOURNE", "restaurants-and-cafes", 450, 1400, 30, false, false},
	{"Seven Seeds", "SEVEN SEEDS CARLTON", "restaurants-and-cafes", 500, 4500, 12, false, false},
	{"Chin Chin", "CHIN CHIN RESTAURANT MELBOURNE", "restaurants-and-cafes", 4000, 18000, 5, false, false},
	{"Grill'd", "GRILL'D SOUTH YARRA", "restaurants-and-cafes", 1800, 4500, 8, false, false},
	{"Café Giulia", "CAFE GIULIA NEWTOWN", "restaurants-and-cafes", 600, 3200, 6, false, false},
	{"Uber Eats", "UBER *EATS HELP.UBER.COM", "takeaway", 1500, 6500, 18, false, false},
	{"Menulog", "MENULOG PTY LTD SYDNEY", "takeaway", 1800, 5500, 8, false, false},
	{"Guzman y Gomez", "GYG COLLINGWOOD", "takeaway", 1200, 3500, 10, false, false},
	{"Domino's", "DOMINOS ESTORE 98511", "takeaway", 1000, 4500, 6, false, false},
	{"The Esplanade Hotel", "ESPY HOTEL ST KILDA", "pubs-and-bars", 900, 9000, 8, false, false},
	{"Young & Jackson", "YOUNG AND JACKSON MELB", "pubs-and-bars", 1000, 7000, 5, false, false},
	{"Dan Murphy's", "DAN MURPHYS 5012 RICHMOND", "booze", 2000, 12000, 6, false, false},
	{"BWS", "BWS LIQUOR 2211 CARLTON", "booze", 1500, 6000, 5, false, false},
	{"Steam", "STEAMGAMES.COM 4259522985", "games-and-software", 299, 8999, 5, false, true},
	{"Apple", "APPLE.COM/BILL SYDNEY", "games-and-software", 149, 2999, 6, false, true},
	{"Spotify", "Spotify 0123456789", "tv-and-music", 1299, 1299, 4, false, true},
	{"Netflix", "NETFLIX.COM MELBOURNE", "tv-and-music", 1899, 2599, 4, false, true},
	{"Stan", "STAN.COM.AU SYDNEY", "tv-and-music", 1200, 2100, 2, false, false},
	{"Ticketek", "TICKETEK PTY LTD SYDNEY", "events-and-gigs", 4500, 25000, 3, false, false},
	{"Moshtix", "MOSHTIX SURRY HILLS", "events-and-gigs", 3000, 12000, 2, false, false},
	{"Spotlight", "SPOTLIGHT 312 BRUNSWICK", "hobbies", 1000, 15000, 3, false, false},
	{"Games Workshop", "GAMES WORKSHOP MELBOURNE", "hobbies", 2500, 20000, 2, false, true},
	{"Qantas", "QANTAS AIRWAYS MASCOT", "holidays-and-travel", 12000, 150000, 2, false, true},
	{"Airbnb", "AIRBNB * HMQ8ZPX2Y3", "holidays-and-travel", 15000, 120000, 2, false, true},
	{"Booking.com", "BOOKING.COM HOTEL AMSTERDAM", "holidays-and-travel", 9000, 90000, 2, false, true},
	{"The Lott", "THE LOTT ONLINE", "lottery-and-gambling", 500, 5000, 2, false, false},
	{"Tobacco Station", "TOBACCO STATION FOOTSCRAY", "tobacco-and-vaping", 2500, 6000, 1, false, false},
	{"IKEA", "IKEA RICHMOND", "homeware-and-appliances", 500, 90000, 4, false, false},
	{"Kmart", "KMART 1044 BRUNSWICK", "homeware-and-appliances", 500, 12000, 8, false, false},
	{"The Good Guys", "THE GOOD GUYS MOORABBIN", "homeware-and-appliances", 9000, 150000, 1, false, false},
	{"Aussie Broadband", "AUSSIE BROADBAND MORWELL", "internet", 8900, 8900, 2, true, false},
	{"Bunnings Warehouse", "BUNNINGS 373000 NORTHCOTE", "home-maintenance-and-improvements", 500, 30000, 7, false, false},
	{"Petbarn", "PETBARN COBURG", "pets", 2000, 15000, 3, false, false},
	{"Greencross Vets", "GREENCROSS VETS BRUNSWICK", "pets", 8000, 45000, 1, false, false},
	{"City of Yarra", "CITY OF YARRA RATES", "home-insurance-and-rates", 40000, 70000, 1, true, false},
	{"Budget Direct", "BUDGET DIRECT HOME INS", "home-insurance-and-rates", 9000, 15000, 1, true, false},
	{"Ray White Rentals", "RAY WHITE RENTALS FITZROY", "rent-and-mortgage", 180000, 240000, 4, true, false},
	{"AGL", "AGL SALES PTY LTD", "utilities", 6000, 35000, 2, true, false},
	{"Yarra Valley Water", "YARRA VALLEY WATER", "utilities", 5000, 20000, 1, true, false},
	{"Baby Bunting", "BABY BUNTING HAWTHORN", "family", 2000, 25000, 1, false, false},
	{"Uniqlo", "UNIQLO EMPORIUM MELBOURNE", "clothing-and-accessories", 2000, 20000, 4, false, false},
	{"The Iconic", "THE ICONIC SYDNEY", "clothing-and-accessories", 3000, 25000, 3, false, true},
	{"Udemy", "UDEMY ONLINE COURSES", "education-and-student-loans", 1499, 19999, 1, false, true},
	{"Anytime Fitness", "ANYTIME FITNESS FITZROY", "fitness-and-wellbeing", 2590, 2590, 4, true, false},
	{"Oxfam", "OXFAM AUSTRALIA CARLTON", "gifts-and-charity", 1000, 10000, 1, false, false},
	{"Typo", "TYPO MELBOURNE CENTRAL", "gifts-and-charity", 800, 6000, 2, false, false},
	{"Mecca", "MECCA COSMETICA MELBOURNE", "hair-and-beauty", 2500, 18000, 2, false, false},
	{"Just Cuts", "JUST CUTS BRUNSWICK", "hair-and-beauty", 3000, 6000, 2, false, false},
	{"Chemist Warehouse", "CHEMIST WAREHOUSE FITZROY", "health-and-medical", 500, 9000, 8, false, false},
	{"Medibank", "MEDIBANK PRIVATE LTD", "health-and-medical", 9000, 25000, 1, true, false},
	{"Spaceship", "SPACESHIP VOYAGER", "investments", 5000, 50000, 1, true, false},
	{"Australia Post", "AUSTRALIA POST 337612", "life-admin", 300, 4000, 3, false, false},
	{"Telstra", "TELSTRA MELBOURNE", "mobile-phone", 5500, 8500, 2, true, false},
	{"Boost Mobile", "BOOST MOBILE RECHARGE", "mobile-phone", 3000, 4500, 1, false, false},
	{"Readings", "READINGS CARLTON", "news-magazines-and-books", 1500, 6000, 2, false, false},
	{"The Age", "THE AGE SUBSCRIPTION", "news-magazines-and-books", 800, 800, 1, true, false},
	{"JB Hi-Fi", "JB HI FI MELBOURNE CENTRAL", "technology", 1500, 250000, 3, false, false},
	{"Officeworks", "OFFICEWORKS 0612 RICHMOND", "technology", 500, 40000, 3, false, false},
	{"RACV", "RACV INSURANCE", "car-insurance-and-maintenance", 8000, 90000, 1, true, false},
	{"99 Bikes", "99 BIKES RICHMOND", "cycling", 1500, 30000, 1, false, false},
	{"BP", "BP CONNECT CARLTON NTH", "fuel", 4000, 11000, 6, false, false},
	{"Shell", "SHELL COLES EXPRESS NORTHCOTE", "fuel", 4000, 10000, 5, false, false},
	{"Wilson Parking", "WILSON PARKING MELBOURNE", "parking", 500, 4500, 4, false, false},
	{"PTV", "MYKI PTV MELBOURNE", "public-transport", 1000, 5000, 18, false, false},
	{"Transport for NSW", "TRANSPORTFORNSW OPAL SYDNEY", "public-transport", 400, 5000, 4, false, false},
	{"Toyota Finance", "TOYOTA FINANCE AUSTRALIA", "car-repayments", 45000, 45000, 1, true, false},
	{"Uber", "UBER *TRIP HELP.UBER.COM", "taxis-and-share-cars", 900, 6500, 8, false, false},
	{"DiDi", "DIDI MOBILITY AUSTRALIA", "taxis-and-share-cars", 900, 5000, 3, false, false},
	{"Linkt", "LINKT MELBOURNE", "toll-roads", 500, 4000, 3, true, false},
}

// foreignCurrencies are the currencies of foreign purchases; rate is the
// number of foreign base units per AUD cent, times 1000 (JPY has no minor
// unit, IDR has two).
var foreignCurrencies = []struct {
	code  string
	city  string
	rate  int64
	place string
}{
	{"USD", "SAN FRANCISCO", 660, "USA"},
	{"EUR", "AMSTERDAM", 610, "NETHERLANDS"},
	{"GBP", "LONDON", 520, "UNITED KINGDOM"},
	{"JPY", "TOKYO", 980, "JAPAN"},
	{"IDR", "UBUD", 10400000, "INDONESIA"},
	{"NZD", "AUCKLAND", 1090, "NEW ZEALAND"},
}

// tagPool are the labels given to transactions, spaces and non-ASCII included.
var tagPool = []string{
	"Holiday 2024", "café", "🏖 beach", "Pizza Night", "Work Expense",
	"Tax Deductible", "Reimbursable", "Date night", "Christmas", "Japan 🇯🇵",
	"Gift", "Shared/Household",
}

// people who send and receive payments.
var people = []string{
	"David Taylor", "Priya Sharma", "Liam O'Connor", "Mei Chen", "Sophie Nguyen",
	"Jack Williams", "Zoë Martin", "Ahmed Hassan",
}

var paymentMessages = []string{
	"Money for the pizzas last night.", "Rent split", "Thanks for dinner 🙏",
	"Concert tickets", "Bills – March", "Birthday present for Mum", "Footy tipping",
}

var notes = []string{
	"Split with Alex, they owe me half", "Claim on tax", "Reimburse from work",
	"Returned the shoes – refund pending", "Birthday gift for Sam 🎂",
}

// cardMethods are the card purchase methods with relative weights.
var cardMethods = []struct {
	method string
	weight int
}{
	{"CONTACTLESS", 45}, {"ECOMMERCE", 18}, {"CARD_ON_FILE", 15}, {"CARD_PIN", 8},
	{"CARD_DETAILS", 6}, {"MAGNETIC_STRIPE", 2}, {"BAR_CODE", 3}, {"OCR", 3},
}
