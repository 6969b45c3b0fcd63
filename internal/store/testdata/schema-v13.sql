-- A mirror at schema version 13, written by `bankmirror demo --transactions 24 --seed 4`
-- built from commit a7810e18d730dd7064dee6d13568378f43c17f22; made by make-fixtures.sh, do not edit.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE accounts (
    id                  TEXT PRIMARY KEY,
    display_name        TEXT NOT NULL,
    account_type        TEXT NOT NULL,
    ownership_type      TEXT NOT NULL,
    balance_currency    TEXT NOT NULL,
    balance_value       TEXT NOT NULL,
    balance_base_units  INTEGER NOT NULL,
    created_at          TEXT NOT NULL,
    raw                 TEXT NOT NULL,
    synced_at           TEXT NOT NULL
, gone_at TEXT) STRICT;
INSERT INTO accounts VALUES('e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','Spending','TRANSACTIONAL','INDIVIDUAL','AUD','5043.59',504359,'2025-08-25T01:20:48+10:00','{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f","attributes":{"displayName":"Spending","accountType":"TRANSACTIONAL","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"5043.59","valueInBaseUnits":504359},"createdAt":"2025-08-25T01:20:48+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f/transactions"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}}','2026-11-27T07:40:48.548111Z',NULL);
INSERT INTO accounts VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','Rainy Day 🌧','SAVER','INDIVIDUAL','AUD','6520.47',652047,'2025-08-26T02:25:33+10:00','{"type":"accounts","id":"af237736-483b-4a4e-8469-cccd9fb6eb7f","attributes":{"displayName":"Rainy Day 🌧","accountType":"SAVER","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"6520.47","valueInBaseUnits":652047},"createdAt":"2025-08-26T02:25:33+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f/transactions"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f"}}','2026-11-27T07:40:46.405021Z',NULL);
INSERT INTO accounts VALUES('e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b','Japan Trip ✈️','SAVER','INDIVIDUAL','AUD','4574.64',457464,'2025-09-12T19:05:02+10:00','{"type":"accounts","id":"e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b","attributes":{"displayName":"Japan Trip ✈️","accountType":"SAVER","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"4574.64","valueInBaseUnits":457464},"createdAt":"2025-09-12T19:05:02+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b/transactions"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/accounts/e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b"}}','2026-11-27T07:40:46.405021Z',NULL);
INSERT INTO accounts VALUES('96411555-3701-419c-8040-5c4d510b52ec','2Up Spending','TRANSACTIONAL','JOINT','AUD','867.55',86755,'2025-09-23T21:06:33+10:00','{"type":"accounts","id":"96411555-3701-419c-8040-5c4d510b52ec","attributes":{"displayName":"2Up Spending","accountType":"TRANSACTIONAL","ownershipType":"JOINT","balance":{"currencyCode":"AUD","value":"867.55","valueInBaseUnits":86755},"createdAt":"2025-09-23T21:06:33+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec/transactions"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec"}}','2026-11-27T07:40:46.405021Z',NULL);
INSERT INTO accounts VALUES('c14fe0b1-490a-43c3-adaa-eaef47687de4','Home Loan','HOME_LOAN','INDIVIDUAL','AUD','-461552.40',-46155240,'2025-10-11T20:29:56+11:00','{"type":"accounts","id":"c14fe0b1-490a-43c3-adaa-eaef47687de4","attributes":{"displayName":"Home Loan","accountType":"HOME_LOAN","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"-461552.40","valueInBaseUnits":-46155240},"createdAt":"2025-10-11T20:29:56+11:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/c14fe0b1-490a-43c3-adaa-eaef47687de4/transactions"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/accounts/c14fe0b1-490a-43c3-adaa-eaef47687de4"}}','2026-11-27T07:40:46.405021Z',NULL);
CREATE TABLE account_balances (
    account_id          TEXT NOT NULL,
    observed_at         TEXT NOT NULL,
    balance_currency    TEXT NOT NULL,
    balance_value       TEXT NOT NULL,
    balance_base_units  INTEGER NOT NULL, observed_epoch INTEGER, observed_local TEXT, observed_date TEXT, observed_month TEXT,
    PRIMARY KEY (account_id, observed_at)
) STRICT;
INSERT INTO account_balances VALUES('e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','2026-11-27T07:40:46.405021Z','AUD','5196.86',519686,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','2026-11-27T07:40:46.405021Z','AUD','6520.47',652047,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b','2026-11-27T07:40:46.405021Z','AUD','4574.64',457464,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('96411555-3701-419c-8040-5c4d510b52ec','2026-11-27T07:40:46.405021Z','AUD','867.55',86755,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('c14fe0b1-490a-43c3-adaa-eaef47687de4','2026-11-27T07:40:46.405021Z','AUD','-461552.40',-46155240,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','2026-11-27T07:40:46.542144Z','AUD','5191.66',519166,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','2026-11-27T07:40:47.539938Z','AUD','4904.21',490421,1795765247,'2026-11-27 18:40:47','2026-11-27','2026-11');
INSERT INTO account_balances VALUES('e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','2026-11-27T07:40:48.548111Z','AUD','5043.59',504359,1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11');
CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    parent_id   TEXT,
    raw         TEXT NOT NULL
) STRICT;
INSERT INTO categories VALUES('good-life','Good Life',NULL,'{"type":"categories","id":"good-life","attributes":{"name":"Good Life"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"games-and-software"},{"type":"categories","id":"booze"},{"type":"categories","id":"events-and-gigs"},{"type":"categories","id":"hobbies"},{"type":"categories","id":"holidays-and-travel"},{"type":"categories","id":"lottery-and-gambling"},{"type":"categories","id":"pubs-and-bars"},{"type":"categories","id":"restaurants-and-cafes"},{"type":"categories","id":"takeaway"},{"type":"categories","id":"tobacco-and-vaping"},{"type":"categories","id":"tv-and-music"},{"type":"categories","id":"adult"}],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=good-life"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/good-life"}}');
INSERT INTO categories VALUES('games-and-software','Apps, Games & Software','good-life','{"type":"categories","id":"games-and-software","attributes":{"name":"Apps, Games & Software"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=games-and-software"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/games-and-software"}}');
INSERT INTO categories VALUES('booze','Booze','good-life','{"type":"categories","id":"booze","attributes":{"name":"Booze"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=booze"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/booze"}}');
INSERT INTO categories VALUES('events-and-gigs','Events & Gigs','good-life','{"type":"categories","id":"events-and-gigs","attributes":{"name":"Events & Gigs"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=events-and-gigs"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/events-and-gigs"}}');
INSERT INTO categories VALUES('hobbies','Hobbies','good-life','{"type":"categories","id":"hobbies","attributes":{"name":"Hobbies"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=hobbies"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/hobbies"}}');
INSERT INTO categories VALUES('holidays-and-travel','Holidays & Travel','good-life','{"type":"categories","id":"holidays-and-travel","attributes":{"name":"Holidays & Travel"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=holidays-and-travel"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/holidays-and-travel"}}');
INSERT INTO categories VALUES('lottery-and-gambling','Lottery & Gambling','good-life','{"type":"categories","id":"lottery-and-gambling","attributes":{"name":"Lottery & Gambling"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=lottery-and-gambling"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/lottery-and-gambling"}}');
INSERT INTO categories VALUES('pubs-and-bars','Pubs & Bars','good-life','{"type":"categories","id":"pubs-and-bars","attributes":{"name":"Pubs & Bars"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=pubs-and-bars"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/pubs-and-bars"}}');
INSERT INTO categories VALUES('restaurants-and-cafes','Restaurants & Cafes','good-life','{"type":"categories","id":"restaurants-and-cafes","attributes":{"name":"Restaurants & Cafes"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=restaurants-and-cafes"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/restaurants-and-cafes"}}');
INSERT INTO categories VALUES('takeaway','Takeaway','good-life','{"type":"categories","id":"takeaway","attributes":{"name":"Takeaway"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=takeaway"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/takeaway"}}');
INSERT INTO categories VALUES('tobacco-and-vaping','Tobacco & Vaping','good-life','{"type":"categories","id":"tobacco-and-vaping","attributes":{"name":"Tobacco & Vaping"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=tobacco-and-vaping"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/tobacco-and-vaping"}}');
INSERT INTO categories VALUES('tv-and-music','TV, Music & Streaming','good-life','{"type":"categories","id":"tv-and-music","attributes":{"name":"TV, Music & Streaming"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=tv-and-music"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/tv-and-music"}}');
INSERT INTO categories VALUES('adult','Adult','good-life','{"type":"categories","id":"adult","attributes":{"name":"Adult"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=adult"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/adult"}}');
INSERT INTO categories VALUES('home','Home',NULL,'{"type":"categories","id":"home","attributes":{"name":"Home"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"groceries"},{"type":"categories","id":"homeware-and-appliances"},{"type":"categories","id":"internet"},{"type":"categories","id":"home-maintenance-and-improvements"},{"type":"categories","id":"pets"},{"type":"categories","id":"home-insurance-and-rates"},{"type":"categories","id":"rent-and-mortgage"},{"type":"categories","id":"utilities"}],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=home"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/home"}}');
INSERT INTO categories VALUES('groceries','Groceries','home','{"type":"categories","id":"groceries","attributes":{"name":"Groceries"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=groceries"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/groceries"}}');
INSERT INTO categories VALUES('homeware-and-appliances','Homeware & Appliances','home','{"type":"categories","id":"homeware-and-appliances","attributes":{"name":"Homeware & Appliances"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=homeware-and-appliances"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/homeware-and-appliances"}}');
INSERT INTO categories VALUES('internet','Internet','home','{"type":"categories","id":"internet","attributes":{"name":"Internet"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=internet"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/internet"}}');
INSERT INTO categories VALUES('home-maintenance-and-improvements','Maintenance & Improvements','home','{"type":"categories","id":"home-maintenance-and-improvements","attributes":{"name":"Maintenance & Improvements"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=home-maintenance-and-improvements"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/home-maintenance-and-improvements"}}');
INSERT INTO categories VALUES('pets','Pets','home','{"type":"categories","id":"pets","attributes":{"name":"Pets"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=pets"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/pets"}}');
INSERT INTO categories VALUES('home-insurance-and-rates','Rates & Insurance','home','{"type":"categories","id":"home-insurance-and-rates","attributes":{"name":"Rates & Insurance"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=home-insurance-and-rates"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/home-insurance-and-rates"}}');
INSERT INTO categories VALUES('rent-and-mortgage','Rent & Mortgage','home','{"type":"categories","id":"rent-and-mortgage","attributes":{"name":"Rent & Mortgage"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=rent-and-mortgage"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/rent-and-mortgage"}}');
INSERT INTO categories VALUES('utilities','Utilities','home','{"type":"categories","id":"utilities","attributes":{"name":"Utilities"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=utilities"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/utilities"}}');
INSERT INTO categories VALUES('personal','Personal',NULL,'{"type":"categories","id":"personal","attributes":{"name":"Personal"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"family"},{"type":"categories","id":"clothing-and-accessories"},{"type":"categories","id":"education-and-student-loans"},{"type":"categories","id":"fitness-and-wellbeing"},{"type":"categories","id":"gifts-and-charity"},{"type":"categories","id":"hair-and-beauty"},{"type":"categories","id":"health-and-medical"},{"type":"categories","id":"investments"},{"type":"categories","id":"life-admin"},{"type":"categories","id":"mobile-phone"},{"type":"categories","id":"news-magazines-and-books"},{"type":"categories","id":"technology"}],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=personal"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/personal"}}');
INSERT INTO categories VALUES('family','Children & Family','personal','{"type":"categories","id":"family","attributes":{"name":"Children & Family"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=family"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/family"}}');
INSERT INTO categories VALUES('clothing-and-accessories','Clothing & Accessories','personal','{"type":"categories","id":"clothing-and-accessories","attributes":{"name":"Clothing & Accessories"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=clothing-and-accessories"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/clothing-and-accessories"}}');
INSERT INTO categories VALUES('education-and-student-loans','Education & Student Loans','personal','{"type":"categories","id":"education-and-student-loans","attributes":{"name":"Education & Student Loans"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=education-and-student-loans"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/education-and-student-loans"}}');
INSERT INTO categories VALUES('fitness-and-wellbeing','Fitness & Wellbeing','personal','{"type":"categories","id":"fitness-and-wellbeing","attributes":{"name":"Fitness & Wellbeing"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=fitness-and-wellbeing"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/fitness-and-wellbeing"}}');
INSERT INTO categories VALUES('gifts-and-charity','Gifts & Charity','personal','{"type":"categories","id":"gifts-and-charity","attributes":{"name":"Gifts & Charity"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=gifts-and-charity"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/gifts-and-charity"}}');
INSERT INTO categories VALUES('hair-and-beauty','Hair & Beauty','personal','{"type":"categories","id":"hair-and-beauty","attributes":{"name":"Hair & Beauty"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=hair-and-beauty"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/hair-and-beauty"}}');
INSERT INTO categories VALUES('health-and-medical','Health & Medical','personal','{"type":"categories","id":"health-and-medical","attributes":{"name":"Health & Medical"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=health-and-medical"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/health-and-medical"}}');
INSERT INTO categories VALUES('investments','Investments','personal','{"type":"categories","id":"investments","attributes":{"name":"Investments"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=investments"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/investments"}}');
INSERT INTO categories VALUES('life-admin','Life Admin','personal','{"type":"categories","id":"life-admin","attributes":{"name":"Life Admin"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=life-admin"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/life-admin"}}');
INSERT INTO categories VALUES('mobile-phone','Mobile Phone','personal','{"type":"categories","id":"mobile-phone","attributes":{"name":"Mobile Phone"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=mobile-phone"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/mobile-phone"}}');
INSERT INTO categories VALUES('news-magazines-and-books','News, Magazines & Books','personal','{"type":"categories","id":"news-magazines-and-books","attributes":{"name":"News, Magazines & Books"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=news-magazines-and-books"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/news-magazines-and-books"}}');
INSERT INTO categories VALUES('technology','Technology','personal','{"type":"categories","id":"technology","attributes":{"name":"Technology"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=technology"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/technology"}}');
INSERT INTO categories VALUES('transport','Transport',NULL,'{"type":"categories","id":"transport","attributes":{"name":"Transport"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"car-insurance-and-maintenance"},{"type":"categories","id":"cycling"},{"type":"categories","id":"fuel"},{"type":"categories","id":"parking"},{"type":"categories","id":"public-transport"},{"type":"categories","id":"car-repayments"},{"type":"categories","id":"taxis-and-share-cars"},{"type":"categories","id":"toll-roads"}],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=transport"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/transport"}}');
INSERT INTO categories VALUES('car-insurance-and-maintenance','Car Insurance, Rego & Maintenance','transport','{"type":"categories","id":"car-insurance-and-maintenance","attributes":{"name":"Car Insurance, Rego & Maintenance"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=car-insurance-and-maintenance"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/car-insurance-and-maintenance"}}');
INSERT INTO categories VALUES('cycling','Cycling','transport','{"type":"categories","id":"cycling","attributes":{"name":"Cycling"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=cycling"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/cycling"}}');
INSERT INTO categories VALUES('fuel','Fuel','transport','{"type":"categories","id":"fuel","attributes":{"name":"Fuel"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=fuel"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/fuel"}}');
INSERT INTO categories VALUES('parking','Parking','transport','{"type":"categories","id":"parking","attributes":{"name":"Parking"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=parking"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/parking"}}');
INSERT INTO categories VALUES('public-transport','Public Transport','transport','{"type":"categories","id":"public-transport","attributes":{"name":"Public Transport"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=public-transport"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/public-transport"}}');
INSERT INTO categories VALUES('car-repayments','Repayments','transport','{"type":"categories","id":"car-repayments","attributes":{"name":"Repayments"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=car-repayments"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/car-repayments"}}');
INSERT INTO categories VALUES('taxis-and-share-cars','Taxis & Share Cars','transport','{"type":"categories","id":"taxis-and-share-cars","attributes":{"name":"Taxis & Share Cars"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=taxis-and-share-cars"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/taxis-and-share-cars"}}');
INSERT INTO categories VALUES('toll-roads','Tolls','transport','{"type":"categories","id":"toll-roads","attributes":{"name":"Tolls"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:35951/api/v1/categories?filter%5Bparent%5D=toll-roads"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/categories/toll-roads"}}');
CREATE TABLE tags (
    id  TEXT PRIMARY KEY
) STRICT;
INSERT INTO tags VALUES('🏖 beach');
INSERT INTO tags VALUES('Date night');
INSERT INTO tags VALUES('Shared/Household');
CREATE TABLE transactions (
    id                              TEXT PRIMARY KEY,
    account_id                      TEXT NOT NULL,
    status                          TEXT NOT NULL,
    raw_text                        TEXT,
    description                     TEXT NOT NULL,
    message                         TEXT,
    is_categorizable                INTEGER NOT NULL,
    amount_currency                 TEXT NOT NULL,
    amount_value                    TEXT NOT NULL,
    amount_base_units               INTEGER NOT NULL,
    foreign_amount_currency         TEXT,
    foreign_amount_value            TEXT,
    foreign_amount_base_units       INTEGER,
    hold_amount_currency            TEXT,
    hold_amount_value               TEXT,
    hold_amount_base_units          INTEGER,
    hold_foreign_amount_currency    TEXT,
    hold_foreign_amount_value       TEXT,
    hold_foreign_amount_base_units  INTEGER,
    round_up_amount_currency        TEXT,
    round_up_amount_value           TEXT,
    round_up_amount_base_units      INTEGER,
    round_up_boost_currency         TEXT,
    round_up_boost_value            TEXT,
    round_up_boost_base_units       INTEGER,
    cashback_description            TEXT,
    cashback_amount_currency        TEXT,
    cashback_amount_value           TEXT,
    cashback_amount_base_units      INTEGER,
    card_purchase_method            TEXT,
    card_number_suffix              TEXT,
    settled_at                      TEXT,
    created_at                      TEXT NOT NULL,
    transaction_type                TEXT,
    note                            TEXT,
    performing_customer             TEXT,
    deep_link_url                   TEXT NOT NULL,
    transfer_account_id             TEXT,
    category_id                     TEXT,
    parent_category_id              TEXT,
    attachment_id                   TEXT,
    raw                             TEXT NOT NULL,
    -- content_hash fingerprints every mirrored field and the tags; a sync
    -- that sees the same hash writes nothing.
    content_hash                    BLOB NOT NULL,
    -- when the response this version came in arrived; an older copy (a
    -- page fetched before a webhook's refetch) never overwrites a newer one
    fetched_at                      TEXT NOT NULL DEFAULT '',
    first_seen_at                   TEXT NOT NULL,
    updated_at                      TEXT NOT NULL
, created_epoch INTEGER, created_local TEXT, created_date TEXT, created_month TEXT, settled_epoch INTEGER, settled_local TEXT, settled_date TEXT, settled_month TEXT, household_transfer_id TEXT) STRICT;
INSERT INTO transactions VALUES('27214796-106b-4593-b6d4-b9081af297ff','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','IKEA RICHMOND','IKEA',NULL,1,'AUD','-79.95',-7995,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'AUD','-0.05',-5,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'ECOMMERCE','4821','2026-10-21T18:03:13+11:00','2026-10-21T18:03:13+11:00','Purchase',NULL,'Bobby','up://transaction/27214796-106b-4593-b6d4-b9081af297ff',NULL,'homeware-and-appliances','home',NULL,'{"type":"transactions","id":"27214796-106b-4593-b6d4-b9081af297ff","attributes":{"status":"SETTLED","rawText":"IKEA RICHMOND","description":"IKEA","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":{"amount":{"currencyCode":"AUD","value":"-0.05","valueInBaseUnits":-5},"boostPortion":null},"cashback":null,"amount":{"currencyCode":"AUD","value":"-79.95","valueInBaseUnits":-7995},"foreignAmount":null,"cardPurchaseMethod":{"method":"ECOMMERCE","cardNumberSuffix":"4821"},"settledAt":"2026-10-21T18:03:13+11:00","createdAt":"2026-10-21T18:03:13+11:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/27214796-106b-4593-b6d4-b9081af297ff"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"homeware-and-appliances"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/27214796-106b-4593-b6d4-b9081af297ff/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/homeware-and-appliances"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/27214796-106b-4593-b6d4-b9081af297ff/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/27214796-106b-4593-b6d4-b9081af297ff"}}',X'9704150e9a6e04b1d393e370b1390391038acb1db1e5684d95ca0ddf7a0ce0a6','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1792566193,'2026-10-21 18:03:13','2026-10-21','2026-10',1792566193,'2026-10-21 18:03:13','2026-10-21','2026-10',NULL);
INSERT INTO transactions VALUES('1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','JUST CUTS BRUNSWICK','Just Cuts',NULL,1,'AUD','-59.21',-5921,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'AUD','-0.79',-79,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'ECOMMERCE','4821','2026-08-20T14:06:51+10:00','2026-08-20T14:06:51+10:00',NULL,NULL,'Bobby','up://transaction/1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78',NULL,'hair-and-beauty','personal',NULL,'{"type":"transactions","id":"1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78","attributes":{"status":"SETTLED","rawText":"JUST CUTS BRUNSWICK","description":"Just Cuts","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":{"amount":{"currencyCode":"AUD","value":"-0.79","valueInBaseUnits":-79},"boostPortion":null},"cashback":null,"amount":{"currencyCode":"AUD","value":"-59.21","valueInBaseUnits":-5921},"foreignAmount":null,"cardPurchaseMethod":{"method":"ECOMMERCE","cardNumberSuffix":"4821"},"settledAt":"2026-08-20T14:06:51+10:00","createdAt":"2026-08-20T14:06:51+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"hair-and-beauty"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/hair-and-beauty"}},"parentCategory":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78"}}',X'dfa7b0e97dfb9bed8f79a53d6ee2bbd32fb2d27fb30331b8901a671eee0299fd','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1787198811,'2026-08-20 14:06:51','2026-08-20','2026-08',1787198811,'2026-08-20 14:06:51','2026-08-20','2026-08',NULL);
INSERT INTO transactions VALUES('4a5e8ca7-2461-4ac5-9ee2-149b5a44bede','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-126.29',-12629,NULL,NULL,NULL,'AUD','-126.29',-12629,NULL,NULL,NULL,'AUD','-0.71',-71,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-08-17T23:27:28+10:00','2026-08-16T08:52:00+10:00',NULL,NULL,'Bobby','up://transaction/4a5e8ca7-2461-4ac5-9ee2-149b5a44bede',NULL,'groceries','home',NULL,'{"type":"transactions","id":"4a5e8ca7-2461-4ac5-9ee2-149b5a44bede","attributes":{"status":"SETTLED","rawText":"COLES 0785 RICHMOND","description":"Coles","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-126.29","valueInBaseUnits":-12629},"foreignAmount":null},"roundUp":{"amount":{"currencyCode":"AUD","value":"-0.71","valueInBaseUnits":-71},"boostPortion":null},"cashback":null,"amount":{"currencyCode":"AUD","value":"-126.29","valueInBaseUnits":-12629},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-08-17T23:27:28+10:00","createdAt":"2026-08-16T08:52:00+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/4a5e8ca7-2461-4ac5-9ee2-149b5a44bede"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/4a5e8ca7-2461-4ac5-9ee2-149b5a44bede/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/4a5e8ca7-2461-4ac5-9ee2-149b5a44bede/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/4a5e8ca7-2461-4ac5-9ee2-149b5a44bede"}}',X'e28b98901797a27456ab7d6bdf55a1d353b1053bdbfdbf046ec47f37b945ffa4','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1786834320,'2026-08-16 08:52:00','2026-08-16','2026-08',1786973248,'2026-08-17 23:27:28','2026-08-17','2026-08',NULL);
INSERT INTO transactions VALUES('37e9a570-825a-49dc-b963-9e04678e895b','c14fe0b1-490a-43c3-adaa-eaef47687de4','SETTLED',NULL,'Interest',NULL,0,'AUD','-981.82',-98182,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-07-28T11:37:17+10:00','2026-07-28T11:37:17+10:00','Interest Charged',NULL,NULL,'up://transaction/37e9a570-825a-49dc-b963-9e04678e895b',NULL,NULL,NULL,NULL,'{"type":"transactions","id":"37e9a570-825a-49dc-b963-9e04678e895b","attributes":{"status":"SETTLED","rawText":null,"description":"Interest","message":null,"isCategorizable":false,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-981.82","valueInBaseUnits":-98182},"foreignAmount":null,"cardPurchaseMethod":null,"settledAt":"2026-07-28T11:37:17+10:00","createdAt":"2026-07-28T11:37:17+10:00","transactionType":"Interest Charged","note":null,"performingCustomer":null,"deepLinkURL":"up://transaction/37e9a570-825a-49dc-b963-9e04678e895b"},"relationships":{"account":{"data":{"type":"accounts","id":"c14fe0b1-490a-43c3-adaa-eaef47687de4"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/c14fe0b1-490a-43c3-adaa-eaef47687de4"}},"transferAccount":{"data":null},"category":{"data":null,"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/37e9a570-825a-49dc-b963-9e04678e895b/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/37e9a570-825a-49dc-b963-9e04678e895b/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/37e9a570-825a-49dc-b963-9e04678e895b"}}',X'de0a6222eaacaa65170bcae949539bf3ce56305888e9abfbbcc295d9feb28ea3','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1785202637,'2026-07-28 11:37:17','2026-07-28','2026-07',1785202637,'2026-07-28 11:37:17','2026-07-28','2026-07',NULL);
INSERT INTO transactions VALUES('c1051d43-f7cb-42bc-818b-773ec753f51b','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','WOOLWORTHS 3321 FITZROY','Woolworths',NULL,1,'AUD','-87.10',-8710,NULL,NULL,NULL,'AUD','-87.10',-8710,NULL,NULL,NULL,'AUD','-0.90',-90,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_ON_FILE','4821','2026-07-18T04:30:24+10:00','2026-07-17T12:12:42+10:00',NULL,NULL,'Bobby','up://transaction/c1051d43-f7cb-42bc-818b-773ec753f51b',NULL,'groceries','home',NULL,'{"type":"transactions","id":"c1051d43-f7cb-42bc-818b-773ec753f51b","attributes":{"status":"SETTLED","rawText":"WOOLWORTHS 3321 FITZROY","description":"Woolworths","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-87.10","valueInBaseUnits":-8710},"foreignAmount":null},"roundUp":{"amount":{"currencyCode":"AUD","value":"-0.90","valueInBaseUnits":-90},"boostPortion":null},"cashback":null,"amount":{"currencyCode":"AUD","value":"-87.10","valueInBaseUnits":-8710},"foreignAmount":null,"cardPurchaseMethod":{"method":"CARD_ON_FILE","cardNumberSuffix":"4821"},"settledAt":"2026-07-18T04:30:24+10:00","createdAt":"2026-07-17T12:12:42+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/c1051d43-f7cb-42bc-818b-773ec753f51b"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/c1051d43-f7cb-42bc-818b-773ec753f51b/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/c1051d43-f7cb-42bc-818b-773ec753f51b/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/c1051d43-f7cb-42bc-818b-773ec753f51b"}}',X'34120e702be9302585e5bc6e93f54bccb1065dc78e5797fb8d6005705bb74c3e','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1784254362,'2026-07-17 12:12:42','2026-07-17','2026-07',1784313024,'2026-07-18 04:30:24','2026-07-18','2026-07',NULL);
INSERT INTO transactions VALUES('12111d56-0486-43b1-a451-256ab9e24c86','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','MECCA COSMETICA MELBOURNE','Mecca',NULL,1,'AUD','-174.16',-17416,NULL,NULL,NULL,'AUD','-174.16',-17416,NULL,NULL,NULL,'AUD','-0.84',-84,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-07-13T18:21:52+10:00','2026-07-10T21:15:57+10:00',NULL,NULL,'Bobby','up://transaction/12111d56-0486-43b1-a451-256ab9e24c86',NULL,'hair-and-beauty','personal',NULL,'{"type":"transactions","id":"12111d56-0486-43b1-a451-256ab9e24c86","attributes":{"status":"SETTLED","rawText":"MECCA COSMETICA MELBOURNE","description":"Mecca","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-174.16","valueInBaseUnits":-17416},"foreignAmount":null},"roundUp":{"amount":{"currencyCode":"AUD","value":"-0.84","valueInBaseUnits":-84},"boostPortion":null},"cashback":null,"amount":{"currencyCode":"AUD","value":"-174.16","valueInBaseUnits":-17416},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-07-13T18:21:52+10:00","createdAt":"2026-07-10T21:15:57+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/12111d56-0486-43b1-a451-256ab9e24c86"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"hair-and-beauty"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/12111d56-0486-43b1-a451-256ab9e24c86/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/hair-and-beauty"}},"parentCategory":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/personal"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/12111d56-0486-43b1-a451-256ab9e24c86/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/12111d56-0486-43b1-a451-256ab9e24c86"}}',X'3749d5ac4314ea193a1c61b616d98337ba1c6f824a9075bc41e6318c14bfd11b','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1783682157,'2026-07-10 21:15:57','2026-07-10','2026-07',1783930912,'2026-07-13 18:21:52','2026-07-13','2026-07',NULL);
INSERT INTO transactions VALUES('2ef228c6-06b9-4e5c-9e78-bb296f8fff66','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','ALDI STORES - PRESTON','Aldi',NULL,1,'AUD','-50.81',-5081,NULL,NULL,NULL,'AUD','-50.81',-5081,NULL,NULL,NULL,'AUD','-5.19',-519,'AUD','-5.00',-500,NULL,NULL,NULL,NULL,'OCR',NULL,'2026-06-13T18:01:51+10:00','2026-06-13T07:20:40+10:00','Purchase',NULL,'Bobby','up://transaction/2ef228c6-06b9-4e5c-9e78-bb296f8fff66',NULL,'groceries','home',NULL,'{"type":"transactions","id":"2ef228c6-06b9-4e5c-9e78-bb296f8fff66","attributes":{"status":"SETTLED","rawText":"ALDI STORES - PRESTON","description":"Aldi","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-50.81","valueInBaseUnits":-5081},"foreignAmount":null},"roundUp":{"amount":{"currencyCode":"AUD","value":"-5.19","valueInBaseUnits":-519},"boostPortion":{"currencyCode":"AUD","value":"-5.00","valueInBaseUnits":-500}},"cashback":null,"amount":{"currencyCode":"AUD","value":"-50.81","valueInBaseUnits":-5081},"foreignAmount":null,"cardPurchaseMethod":{"method":"OCR","cardNumberSuffix":null},"settledAt":"2026-06-13T18:01:51+10:00","createdAt":"2026-06-13T07:20:40+10:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/2ef228c6-06b9-4e5c-9e78-bb296f8fff66"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/2ef228c6-06b9-4e5c-9e78-bb296f8fff66/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/2ef228c6-06b9-4e5c-9e78-bb296f8fff66/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/2ef228c6-06b9-4e5c-9e78-bb296f8fff66"}}',X'7315dd61ef82268226d0a7cb298cb534b369edf11a8470c1fde0e33fb02aa654','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1781299240,'2026-06-13 07:20:40','2026-06-13','2026-06',1781337711,'2026-06-13 18:01:51','2026-06-13','2026-06',NULL);
INSERT INTO transactions VALUES('d3aff55b-1757-4522-bfe9-721d1c8d072c','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED',NULL,'Transfer to Rainy Day 🌧','Groceries this week',0,'AUD','-1002.50',-100250,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-06-08T13:49:27+10:00','2026-06-08T13:49:27+10:00','Transfer',NULL,'Bobby','up://transaction/d3aff55b-1757-4522-bfe9-721d1c8d072c','af237736-483b-4a4e-8469-cccd9fb6eb7f',NULL,NULL,NULL,'{"type":"transactions","id":"d3aff55b-1757-4522-bfe9-721d1c8d072c","attributes":{"status":"SETTLED","rawText":null,"description":"Transfer to Rainy Day 🌧","message":"Groceries this week","isCategorizable":false,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-1002.50","valueInBaseUnits":-100250},"foreignAmount":null,"cardPurchaseMethod":null,"settledAt":"2026-06-08T13:49:27+10:00","createdAt":"2026-06-08T13:49:27+10:00","transactionType":"Transfer","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/d3aff55b-1757-4522-bfe9-721d1c8d072c"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":{"type":"accounts","id":"af237736-483b-4a4e-8469-cccd9fb6eb7f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f"}},"category":{"data":null,"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d3aff55b-1757-4522-bfe9-721d1c8d072c/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d3aff55b-1757-4522-bfe9-721d1c8d072c/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d3aff55b-1757-4522-bfe9-721d1c8d072c"}}',X'eb0aca96db842f39cde0c62e0775c7e0eeb03ebcf220c027371302a6f71d3517','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1780890567,'2026-06-08 13:49:27','2026-06-08','2026-06',1780890567,'2026-06-08 13:49:27','2026-06-08','2026-06',NULL);
INSERT INTO transactions VALUES('179448e0-3ea3-4b4e-9505-cdacbd598435','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED',NULL,'Transfer from Spending','Groceries this week',0,'AUD','1002.50',100250,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-06-08T13:49:27+10:00','2026-06-08T13:49:27+10:00','Transfer',NULL,'Bobby','up://transaction/179448e0-3ea3-4b4e-9505-cdacbd598435','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f',NULL,NULL,NULL,'{"type":"transactions","id":"179448e0-3ea3-4b4e-9505-cdacbd598435","attributes":{"status":"SETTLED","rawText":null,"description":"Transfer from Spending","message":"Groceries this week","isCategorizable":false,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"1002.50","valueInBaseUnits":100250},"foreignAmount":null,"cardPurchaseMethod":null,"settledAt":"2026-06-08T13:49:27+10:00","createdAt":"2026-06-08T13:49:27+10:00","transactionType":"Transfer","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/179448e0-3ea3-4b4e-9505-cdacbd598435"},"relationships":{"account":{"data":{"type":"accounts","id":"af237736-483b-4a4e-8469-cccd9fb6eb7f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f"}},"transferAccount":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"category":{"data":null,"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/179448e0-3ea3-4b4e-9505-cdacbd598435/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/179448e0-3ea3-4b4e-9505-cdacbd598435/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/179448e0-3ea3-4b4e-9505-cdacbd598435"}}',X'3f80d932d944fc6cbaa36ec84dbe0f7447066875a6c9dd51970a750594d17cdd','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1780890567,'2026-06-08 13:49:27','2026-06-08','2026-06',1780890567,'2026-06-08 13:49:27','2026-06-08','2026-06',NULL);
INSERT INTO transactions VALUES('242117b4-7a38-461f-98ad-4b5ce8e02bdd','96411555-3701-419c-8040-5c4d510b52ec','SETTLED','GRILL''D SOUTH YARRA','Grill''d',NULL,1,'AUD','-36.77',-3677,NULL,NULL,NULL,'AUD','-36.77',-3677,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7390','2026-06-02T01:03:48+10:00','2026-05-30T09:22:03+10:00',NULL,NULL,'Alex','up://transaction/242117b4-7a38-461f-98ad-4b5ce8e02bdd',NULL,'restaurants-and-cafes','good-life',NULL,'{"type":"transactions","id":"242117b4-7a38-461f-98ad-4b5ce8e02bdd","attributes":{"status":"SETTLED","rawText":"GRILL''D SOUTH YARRA","description":"Grill''d","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-36.77","valueInBaseUnits":-3677},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-36.77","valueInBaseUnits":-3677},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"7390"},"settledAt":"2026-06-02T01:03:48+10:00","createdAt":"2026-05-30T09:22:03+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Alex"},"deepLinkURL":"up://transaction/242117b4-7a38-461f-98ad-4b5ce8e02bdd"},"relationships":{"account":{"data":{"type":"accounts","id":"96411555-3701-419c-8040-5c4d510b52ec"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"restaurants-and-cafes"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/242117b4-7a38-461f-98ad-4b5ce8e02bdd/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/restaurants-and-cafes"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/242117b4-7a38-461f-98ad-4b5ce8e02bdd/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/242117b4-7a38-461f-98ad-4b5ce8e02bdd"}}',X'7fb1eb0a1154065efdb37ffde9730a6886e4d396a189bcbc767cf50a468a2aa7','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1780096923,'2026-05-30 09:22:03','2026-05-30','2026-05',1780326228,'2026-06-02 01:03:48','2026-06-02','2026-06',NULL);
INSERT INTO transactions VALUES('bbd83de6-7941-4143-bc3b-63ee7540bab8','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-66.43',-6643,NULL,NULL,NULL,'AUD','-66.43',-6643,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-05-27T17:06:34+10:00','2026-05-25T17:56:44+10:00','Purchase',NULL,'Bobby','up://transaction/bbd83de6-7941-4143-bc3b-63ee7540bab8',NULL,'groceries','home',NULL,'{"type":"transactions","id":"bbd83de6-7941-4143-bc3b-63ee7540bab8","attributes":{"status":"SETTLED","rawText":"COLES 0785 RICHMOND","description":"Coles","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-66.43","valueInBaseUnits":-6643},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-66.43","valueInBaseUnits":-6643},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-05-27T17:06:34+10:00","createdAt":"2026-05-25T17:56:44+10:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/bbd83de6-7941-4143-bc3b-63ee7540bab8"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/bbd83de6-7941-4143-bc3b-63ee7540bab8/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/bbd83de6-7941-4143-bc3b-63ee7540bab8/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/bbd83de6-7941-4143-bc3b-63ee7540bab8"}}',X'a3d9e083d91fa7c85ac0ab63d1ad394e26c4afb7b2463a817aedfadcdb2c28c3','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1779695804,'2026-05-25 17:56:44','2026-05-25','2026-05',1779865594,'2026-05-27 17:06:34','2026-05-27','2026-05',NULL);
INSERT INTO transactions VALUES('69bcdf64-a397-46ec-b70f-2a48a9221532','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','SEVEN SEEDS CARLTON','Seven Seeds',NULL,1,'AUD','-38.84',-3884,NULL,NULL,NULL,'AUD','-38.84',-3884,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_ON_FILE',NULL,'2026-05-22T18:50:13+10:00','2026-05-20T12:19:45+10:00','Purchase',NULL,'Bobby','up://transaction/69bcdf64-a397-46ec-b70f-2a48a9221532',NULL,'restaurants-and-cafes','good-life',NULL,'{"type":"transactions","id":"69bcdf64-a397-46ec-b70f-2a48a9221532","attributes":{"status":"SETTLED","rawText":"SEVEN SEEDS CARLTON","description":"Seven Seeds","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-38.84","valueInBaseUnits":-3884},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-38.84","valueInBaseUnits":-3884},"foreignAmount":null,"cardPurchaseMethod":{"method":"CARD_ON_FILE","cardNumberSuffix":null},"settledAt":"2026-05-22T18:50:13+10:00","createdAt":"2026-05-20T12:19:45+10:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/69bcdf64-a397-46ec-b70f-2a48a9221532"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"restaurants-and-cafes"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/69bcdf64-a397-46ec-b70f-2a48a9221532/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/restaurants-and-cafes"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/69bcdf64-a397-46ec-b70f-2a48a9221532/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/69bcdf64-a397-46ec-b70f-2a48a9221532"}}',X'2452bbd3aae092bfa666130bdce158a68be5b49e49caf6f1c9d40b2c9388428e','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1779243585,'2026-05-20 12:19:45','2026-05-20','2026-05',1779439813,'2026-05-22 18:50:13','2026-05-22','2026-05',NULL);
INSERT INTO transactions VALUES('6886582b-97b7-4570-8165-904e7c888ac3','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','WOOLWORTHS 3321 FITZROY','Woolworths',NULL,1,'AUD','-88.59',-8859,NULL,NULL,NULL,'AUD','-88.59',-8859,NULL,NULL,NULL,'AUD','-0.41',-41,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_ON_FILE','4821','2026-04-27T03:07:34+10:00','2026-04-25T07:05:46+10:00',NULL,NULL,'Bobby','up://transaction/6886582b-97b7-4570-8165-904e7c888ac3',NULL,'groceries','home',NULL,'{"type":"transactions","id":"6886582b-97b7-4570-8165-904e7c888ac3","attributes":{"status":"SETTLED","rawText":"WOOLWORTHS 3321 FITZROY","description":"Woolworths","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-88.59","valueInBaseUnits":-8859},"foreignAmount":null},"roundUp":{"amount":{"currencyCode":"AUD","value":"-0.41","valueInBaseUnits":-41},"boostPortion":null},"cashback":null,"amount":{"currencyCode":"AUD","value":"-88.59","valueInBaseUnits":-8859},"foreignAmount":null,"cardPurchaseMethod":{"method":"CARD_ON_FILE","cardNumberSuffix":"4821"},"settledAt":"2026-04-27T03:07:34+10:00","createdAt":"2026-04-25T07:05:46+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/6886582b-97b7-4570-8165-904e7c888ac3"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6886582b-97b7-4570-8165-904e7c888ac3/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6886582b-97b7-4570-8165-904e7c888ac3/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6886582b-97b7-4570-8165-904e7c888ac3"}}',X'7a6c47648b464e1c84618476c7810bdcba776ff901d0bc986512394cc9f7f0e9','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1777064746,'2026-04-25 07:05:46','2026-04-25','2026-04',1777223254,'2026-04-27 03:07:34','2026-04-27','2026-04',NULL);
INSERT INTO transactions VALUES('d3cdf5a0-279a-45ad-ae40-a853762fcf33','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-92.82',-9282,NULL,NULL,NULL,'AUD','-92.82',-9282,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-04-14T04:30:01+10:00','2026-04-12T18:59:00+10:00',NULL,NULL,'Bobby','up://transaction/d3cdf5a0-279a-45ad-ae40-a853762fcf33',NULL,'groceries','home','40a0a378-0348-4b60-97e4-7f549b2e3a15','{"type":"transactions","id":"d3cdf5a0-279a-45ad-ae40-a853762fcf33","attributes":{"status":"SETTLED","rawText":"COLES 0785 RICHMOND","description":"Coles","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-92.82","valueInBaseUnits":-9282},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-92.82","valueInBaseUnits":-9282},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-04-14T04:30:01+10:00","createdAt":"2026-04-12T18:59:00+10:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/d3cdf5a0-279a-45ad-ae40-a853762fcf33"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d3cdf5a0-279a-45ad-ae40-a853762fcf33/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d3cdf5a0-279a-45ad-ae40-a853762fcf33/relationships/tags"}},"attachment":{"data":{"type":"attachments","id":"40a0a378-0348-4b60-97e4-7f549b2e3a15"},"links":{"related":"http://127.0.0.1:35951/api/v1/attachments/40a0a378-0348-4b60-97e4-7f549b2e3a15"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d3cdf5a0-279a-45ad-ae40-a853762fcf33"}}',X'6e03c8b078ba82fcb9301aa49824f5ec2fb5085a0e98b94af9c12eac8d229d9f','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1775984340,'2026-04-12 18:59:00','2026-04-12','2026-04',1776105001,'2026-04-14 04:30:01','2026-04-14','2026-04',NULL);
INSERT INTO transactions VALUES('48f7afd4-c2f1-4f43-8222-b88ae7518e28','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED',NULL,'Sophie Nguyen','Thanks for dinner 🙏',1,'AUD','-370.52',-37052,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-03-01T15:11:40+11:00','2026-03-01T15:11:40+11:00','Pay Anyone',NULL,'Bobby','up://transaction/48f7afd4-c2f1-4f43-8222-b88ae7518e28',NULL,NULL,NULL,NULL,'{"type":"transactions","id":"48f7afd4-c2f1-4f43-8222-b88ae7518e28","attributes":{"status":"SETTLED","rawText":null,"description":"Sophie Nguyen","message":"Thanks for dinner 🙏","isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-370.52","valueInBaseUnits":-37052},"foreignAmount":null,"cardPurchaseMethod":null,"settledAt":"2026-03-01T15:11:40+11:00","createdAt":"2026-03-01T15:11:40+11:00","transactionType":"Pay Anyone","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/48f7afd4-c2f1-4f43-8222-b88ae7518e28"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":null,"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/48f7afd4-c2f1-4f43-8222-b88ae7518e28/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/48f7afd4-c2f1-4f43-8222-b88ae7518e28/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/48f7afd4-c2f1-4f43-8222-b88ae7518e28"}}',X'af5486a77ccd08c78f74fc884650a89820fe1a5342dadac18441adfb1ac7ca5c','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1772338300,'2026-03-01 15:11:40','2026-03-01','2026-03',1772338300,'2026-03-01 15:11:40','2026-03-01','2026-03',NULL);
INSERT INTO transactions VALUES('dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','KMART 1044 BRUNSWICK','Kmart',NULL,1,'AUD','-91.83',-9183,NULL,NULL,NULL,'AUD','-91.83',-9183,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_ON_FILE',NULL,'2026-02-18T08:00:33+11:00','2026-02-17T08:04:39+11:00',NULL,NULL,'Bobby','up://transaction/dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e',NULL,'homeware-and-appliances','home',NULL,'{"type":"transactions","id":"dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e","attributes":{"status":"SETTLED","rawText":"KMART 1044 BRUNSWICK","description":"Kmart","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-91.83","valueInBaseUnits":-9183},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-91.83","valueInBaseUnits":-9183},"foreignAmount":null,"cardPurchaseMethod":{"method":"CARD_ON_FILE","cardNumberSuffix":null},"settledAt":"2026-02-18T08:00:33+11:00","createdAt":"2026-02-17T08:04:39+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"homeware-and-appliances"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/homeware-and-appliances"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e"}}',X'bdcd35c7ed9debc133e49662522d4a9e2387bc09996bd8ea8c12fe61c7b27cdb','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1771275879,'2026-02-17 08:04:39','2026-02-17','2026-02',1771362033,'2026-02-18 08:00:33','2026-02-18','2026-02',NULL);
INSERT INTO transactions VALUES('e5d45042-f9f9-4408-a144-e15554d9f765','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','UBER *EATS HELP.UBER.COM','Uber Eats',NULL,1,'AUD','-43.49',-4349,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_PIN','4821','2026-02-05T09:17:11+11:00','2026-02-05T09:17:11+11:00','Purchase',NULL,'Bobby','up://transaction/e5d45042-f9f9-4408-a144-e15554d9f765',NULL,'takeaway','good-life',NULL,'{"type":"transactions","id":"e5d45042-f9f9-4408-a144-e15554d9f765","attributes":{"status":"SETTLED","rawText":"UBER *EATS HELP.UBER.COM","description":"Uber Eats","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-43.49","valueInBaseUnits":-4349},"foreignAmount":null,"cardPurchaseMethod":{"method":"CARD_PIN","cardNumberSuffix":"4821"},"settledAt":"2026-02-05T09:17:11+11:00","createdAt":"2026-02-05T09:17:11+11:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/e5d45042-f9f9-4408-a144-e15554d9f765"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"takeaway"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/e5d45042-f9f9-4408-a144-e15554d9f765/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/takeaway"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/e5d45042-f9f9-4408-a144-e15554d9f765/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/e5d45042-f9f9-4408-a144-e15554d9f765"}}',X'7e360124d87ec6f4619f404b41b30398845004d4ee54e9f24a5116b3461772d4','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1770243431,'2026-02-05 09:17:11','2026-02-05','2026-02',1770243431,'2026-02-05 09:17:11','2026-02-05','2026-02',NULL);
INSERT INTO transactions VALUES('d29efcba-02ba-4eb1-9342-a7b9ada5ba78','96411555-3701-419c-8040-5c4d510b52ec','SETTLED','WILSON PARKING MELBOURNE','Wilson Parking',NULL,1,'AUD','-24.50',-2450,NULL,NULL,NULL,'AUD','-24.50',-2450,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7390','2026-01-17T17:42:22+11:00','2026-01-15T22:26:06+11:00',NULL,NULL,'Alex','up://transaction/d29efcba-02ba-4eb1-9342-a7b9ada5ba78',NULL,NULL,NULL,NULL,'{"type":"transactions","id":"d29efcba-02ba-4eb1-9342-a7b9ada5ba78","attributes":{"status":"SETTLED","rawText":"WILSON PARKING MELBOURNE","description":"Wilson Parking","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-24.50","valueInBaseUnits":-2450},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-24.50","valueInBaseUnits":-2450},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"7390"},"settledAt":"2026-01-17T17:42:22+11:00","createdAt":"2026-01-15T22:26:06+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Alex"},"deepLinkURL":"up://transaction/d29efcba-02ba-4eb1-9342-a7b9ada5ba78"},"relationships":{"account":{"data":{"type":"accounts","id":"96411555-3701-419c-8040-5c4d510b52ec"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec"}},"transferAccount":{"data":null},"category":{"data":null,"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d29efcba-02ba-4eb1-9342-a7b9ada5ba78/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d29efcba-02ba-4eb1-9342-a7b9ada5ba78/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/d29efcba-02ba-4eb1-9342-a7b9ada5ba78"}}',X'ef48729ab2f07c7f4d7db7fae7a36cb7965c90d635fd412475c04c7ca931d768','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1768476366,'2026-01-15 22:26:06','2026-01-15','2026-01',1768632142,'2026-01-17 17:42:22','2026-01-17','2026-01',NULL);
INSERT INTO transactions VALUES('428b1995-bb4b-407e-ac3e-99df9d1ba52f','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','DAN MURPHYS 5012 RICHMOND','Dan Murphy''s',NULL,1,'AUD','-42.36',-4236,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2025-12-27T11:22:39+11:00','2025-12-27T11:22:39+11:00',NULL,NULL,'Bobby','up://transaction/428b1995-bb4b-407e-ac3e-99df9d1ba52f',NULL,'booze','good-life',NULL,'{"type":"transactions","id":"428b1995-bb4b-407e-ac3e-99df9d1ba52f","attributes":{"status":"SETTLED","rawText":"DAN MURPHYS 5012 RICHMOND","description":"Dan Murphy''s","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-42.36","valueInBaseUnits":-4236},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2025-12-27T11:22:39+11:00","createdAt":"2025-12-27T11:22:39+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/428b1995-bb4b-407e-ac3e-99df9d1ba52f"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"booze"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/428b1995-bb4b-407e-ac3e-99df9d1ba52f/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/booze"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[{"type":"tags","id":"🏖 beach"},{"type":"tags","id":"Date night"},{"type":"tags","id":"Shared/Household"}],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/428b1995-bb4b-407e-ac3e-99df9d1ba52f/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/428b1995-bb4b-407e-ac3e-99df9d1ba52f"}}',X'7303ac4471335fb089f28a85cf008a1fbcbb881367056a09d0f8aabac2551627','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1766794959,'2025-12-27 11:22:39','2025-12-27','2025-12',1766794959,'2025-12-27 11:22:39','2025-12-27','2025-12',NULL);
INSERT INTO transactions VALUES('07098f6d-8cb2-4231-b8e2-4e08969d7711','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','TOYOTA FINANCE AUSTRALIA','Toyota Finance',NULL,1,'AUD','-450.00',-45000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2025-11-23T19:25:22+11:00','2025-11-23T19:25:22+11:00','Direct Debit',NULL,'Bobby','up://transaction/07098f6d-8cb2-4231-b8e2-4e08969d7711',NULL,'car-repayments','transport',NULL,'{"type":"transactions","id":"07098f6d-8cb2-4231-b8e2-4e08969d7711","attributes":{"status":"SETTLED","rawText":"TOYOTA FINANCE AUSTRALIA","description":"Toyota Finance","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-450.00","valueInBaseUnits":-45000},"foreignAmount":null,"cardPurchaseMethod":null,"settledAt":"2025-11-23T19:25:22+11:00","createdAt":"2025-11-23T19:25:22+11:00","transactionType":"Direct Debit","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/07098f6d-8cb2-4231-b8e2-4e08969d7711"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"car-repayments"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/07098f6d-8cb2-4231-b8e2-4e08969d7711/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/car-repayments"}},"parentCategory":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/07098f6d-8cb2-4231-b8e2-4e08969d7711/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/07098f6d-8cb2-4231-b8e2-4e08969d7711"}}',X'dff9a486e8ff6e646e62fa1a09447c752904dae243363b4eb1e25167fb8afff2','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1763886322,'2025-11-23 19:25:22','2025-11-23','2025-11',1763886322,'2025-11-23 19:25:22','2025-11-23','2025-11',NULL);
INSERT INTO transactions VALUES('71f96608-3aa1-4cc4-9d31-f7728bbf957a','96411555-3701-419c-8040-5c4d510b52ec','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-108.63',-10863,NULL,NULL,NULL,'AUD','-108.63',-10863,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'BAR_CODE',NULL,'2025-11-14T09:13:40+11:00','2025-11-13T21:14:22+11:00',NULL,NULL,'Bobby','up://transaction/71f96608-3aa1-4cc4-9d31-f7728bbf957a',NULL,'groceries','home',NULL,'{"type":"transactions","id":"71f96608-3aa1-4cc4-9d31-f7728bbf957a","attributes":{"status":"SETTLED","rawText":"COLES 0785 RICHMOND","description":"Coles","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-108.63","valueInBaseUnits":-10863},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-108.63","valueInBaseUnits":-10863},"foreignAmount":null,"cardPurchaseMethod":{"method":"BAR_CODE","cardNumberSuffix":null},"settledAt":"2025-11-14T09:13:40+11:00","createdAt":"2025-11-13T21:14:22+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/71f96608-3aa1-4cc4-9d31-f7728bbf957a"},"relationships":{"account":{"data":{"type":"accounts","id":"96411555-3701-419c-8040-5c4d510b52ec"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/71f96608-3aa1-4cc4-9d31-f7728bbf957a/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/71f96608-3aa1-4cc4-9d31-f7728bbf957a/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/71f96608-3aa1-4cc4-9d31-f7728bbf957a"}}',X'704ed540da676bd224734c3f9c244f7bbf1d9b83e7915b6d805029e1c186322d','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1763028862,'2025-11-13 21:14:22','2025-11-13','2025-11',1763072020,'2025-11-14 09:13:40','2025-11-14','2025-11',NULL);
INSERT INTO transactions VALUES('9ab10125-8695-4824-8dd5-22061e979e2b','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','TICKETEK PTY LTD SYDNEY','Ticketek',NULL,1,'AUD','-99.45',-9945,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_ON_FILE',NULL,'2025-11-08T15:43:02+11:00','2025-11-08T15:43:02+11:00','Purchase',NULL,'Bobby','up://transaction/9ab10125-8695-4824-8dd5-22061e979e2b',NULL,'events-and-gigs','good-life',NULL,'{"type":"transactions","id":"9ab10125-8695-4824-8dd5-22061e979e2b","attributes":{"status":"SETTLED","rawText":"TICKETEK PTY LTD SYDNEY","description":"Ticketek","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-99.45","valueInBaseUnits":-9945},"foreignAmount":null,"cardPurchaseMethod":{"method":"CARD_ON_FILE","cardNumberSuffix":null},"settledAt":"2025-11-08T15:43:02+11:00","createdAt":"2025-11-08T15:43:02+11:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/9ab10125-8695-4824-8dd5-22061e979e2b"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"events-and-gigs"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/9ab10125-8695-4824-8dd5-22061e979e2b/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/events-and-gigs"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/9ab10125-8695-4824-8dd5-22061e979e2b/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/9ab10125-8695-4824-8dd5-22061e979e2b"}}',X'4b34591b8232fd51fe82c61c7dd1eed8ef213ff5dc2eb8beaf50f7575e20d2a4','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1762576982,'2025-11-08 15:43:02','2025-11-08','2025-11',1762576982,'2025-11-08 15:43:02','2025-11-08','2025-11',NULL);
INSERT INTO transactions VALUES('9883c6da-6946-4866-b835-a22fc8ad1e58','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','GYG COLLINGWOOD','Guzman y Gomez',NULL,1,'AUD','-30.73',-3073,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'ECOMMERCE','4821','2025-11-03T21:12:17+11:00','2025-11-03T21:12:17+11:00','Purchase',NULL,'Bobby','up://transaction/9883c6da-6946-4866-b835-a22fc8ad1e58',NULL,'takeaway','good-life',NULL,'{"type":"transactions","id":"9883c6da-6946-4866-b835-a22fc8ad1e58","attributes":{"status":"SETTLED","rawText":"GYG COLLINGWOOD","description":"Guzman y Gomez","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-30.73","valueInBaseUnits":-3073},"foreignAmount":null,"cardPurchaseMethod":{"method":"ECOMMERCE","cardNumberSuffix":"4821"},"settledAt":"2025-11-03T21:12:17+11:00","createdAt":"2025-11-03T21:12:17+11:00","transactionType":"Purchase","note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/9883c6da-6946-4866-b835-a22fc8ad1e58"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"takeaway"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/9883c6da-6946-4866-b835-a22fc8ad1e58/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/takeaway"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/9883c6da-6946-4866-b835-a22fc8ad1e58/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/9883c6da-6946-4866-b835-a22fc8ad1e58"}}',X'1fb984154802ed3d83c089bfb234124563b01b92cd76720f0d8f18fc81bb48a0','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1762164737,'2025-11-03 21:12:17','2025-11-03','2025-11',1762164737,'2025-11-03 21:12:17','2025-11-03','2025-11',NULL);
INSERT INTO transactions VALUES('22289502-bd8b-4d0b-aa01-23c8ec660ebc','96411555-3701-419c-8040-5c4d510b52ec','SETTLED','DAN MURPHYS 5012 RICHMOND','Dan Murphy''s',NULL,1,'AUD','-107.02',-10702,NULL,NULL,NULL,'AUD','-107.02',-10702,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'ECOMMERCE','7390','2025-10-30T20:31:20+11:00','2025-10-28T11:34:35+11:00',NULL,NULL,'Alex','up://transaction/22289502-bd8b-4d0b-aa01-23c8ec660ebc',NULL,'booze','good-life',NULL,'{"type":"transactions","id":"22289502-bd8b-4d0b-aa01-23c8ec660ebc","attributes":{"status":"SETTLED","rawText":"DAN MURPHYS 5012 RICHMOND","description":"Dan Murphy''s","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-107.02","valueInBaseUnits":-10702},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-107.02","valueInBaseUnits":-10702},"foreignAmount":null,"cardPurchaseMethod":{"method":"ECOMMERCE","cardNumberSuffix":"7390"},"settledAt":"2025-10-30T20:31:20+11:00","createdAt":"2025-10-28T11:34:35+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Alex"},"deepLinkURL":"up://transaction/22289502-bd8b-4d0b-aa01-23c8ec660ebc"},"relationships":{"account":{"data":{"type":"accounts","id":"96411555-3701-419c-8040-5c4d510b52ec"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"booze"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/22289502-bd8b-4d0b-aa01-23c8ec660ebc/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/booze"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/22289502-bd8b-4d0b-aa01-23c8ec660ebc/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/22289502-bd8b-4d0b-aa01-23c8ec660ebc"}}',X'ef89e3192459c9daa57b5e58fb11ae094d19c4fcc924d802153e7a29b273f444','2026-11-27T07:40:46.463826Z','2026-11-27T07:40:46.465000Z','2026-11-27T07:40:46.465000Z',1761611675,'2025-10-28 11:34:35','2025-10-28','2025-10',1761816680,'2025-10-30 20:31:20','2025-10-30','2025-10',NULL);
INSERT INTO transactions VALUES('6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','Seven Seeds','Seven Seeds',NULL,1,'AUD','-5.72',-572,NULL,NULL,NULL,'AUD','-5.20',-520,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-11-27T18:40:47+11:00','2026-11-27T18:40:46+11:00',NULL,NULL,'Bobby','up://transaction/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00',NULL,'restaurants-and-cafes','good-life',NULL,'{"type":"transactions","id":"6198a8c5-c3d2-43b5-aab7-f7de46d4cb00","attributes":{"status":"SETTLED","rawText":"Seven Seeds","description":"Seven Seeds","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-5.20","valueInBaseUnits":-520},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-5.72","valueInBaseUnits":-572},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-11-27T18:40:47+11:00","createdAt":"2026-11-27T18:40:46+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"restaurants-and-cafes"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/restaurants-and-cafes"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"}}',X'53643bdfde1d823e8efc928ed8e6d4eaf1139d9e5a747ef60b4e683dbbae2938','2026-11-27T07:40:47.738391Z','2026-11-27T07:40:46.536037Z','2026-11-27T07:40:47.738770Z',1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11',1795765247,'2026-11-27 18:40:47','2026-11-27','2026-11',NULL);
INSERT INTO transactions VALUES('14a79153-7903-4f6d-93f7-c1a438f10be5','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','Woolworths','Woolworths',NULL,1,'AUD','-87.45',-8745,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-11-27T18:40:46+11:00','2026-11-27T18:40:46+11:00',NULL,NULL,'Bobby','up://transaction/14a79153-7903-4f6d-93f7-c1a438f10be5',NULL,'groceries','home',NULL,'{"type":"transactions","id":"14a79153-7903-4f6d-93f7-c1a438f10be5","attributes":{"status":"SETTLED","rawText":"Woolworths","description":"Woolworths","message":null,"isCategorizable":true,"holdInfo":null,"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-87.45","valueInBaseUnits":-8745},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-11-27T18:40:46+11:00","createdAt":"2026-11-27T18:40:46+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/14a79153-7903-4f6d-93f7-c1a438f10be5"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"groceries"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/14a79153-7903-4f6d-93f7-c1a438f10be5/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/groceries"}},"parentCategory":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/home"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/14a79153-7903-4f6d-93f7-c1a438f10be5/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/14a79153-7903-4f6d-93f7-c1a438f10be5"}}',X'5d2deac87da3f127b8d3da5583e28d6ad52ef9b02dce999b66a1d3d0c9caf1c2','2026-11-27T07:40:46.937852Z','2026-11-27T07:40:46.940240Z','2026-11-27T07:40:46.940240Z',1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11',1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11',NULL);
INSERT INTO transactions VALUES('53ae9aa3-66a3-4a89-9567-68dd545e9c08','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','SETTLED','Ampol','Ampol',NULL,1,'AUD','-60.10',-6010,NULL,NULL,NULL,'AUD','-60.10',-6010,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','4821','2026-11-27T18:40:48+11:00','2026-11-27T18:40:48+11:00',NULL,NULL,'Bobby','up://transaction/53ae9aa3-66a3-4a89-9567-68dd545e9c08',NULL,'fuel','transport',NULL,'{"type":"transactions","id":"53ae9aa3-66a3-4a89-9567-68dd545e9c08","attributes":{"status":"SETTLED","rawText":"Ampol","description":"Ampol","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-60.10","valueInBaseUnits":-6010},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-60.10","valueInBaseUnits":-6010},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":"2026-11-27T18:40:48+11:00","createdAt":"2026-11-27T18:40:48+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/53ae9aa3-66a3-4a89-9567-68dd545e9c08"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"fuel"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/53ae9aa3-66a3-4a89-9567-68dd545e9c08/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/fuel"}},"parentCategory":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/53ae9aa3-66a3-4a89-9567-68dd545e9c08/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/53ae9aa3-66a3-4a89-9567-68dd545e9c08"}}',X'105a3d2b0abe28a707e64610e5e071915185d0670a284447e235abf2acfb72df','2026-11-27T07:40:48.961421Z','2026-11-27T07:40:48.962098Z','2026-11-27T07:40:48.962098Z',1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11',1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11',NULL);
CREATE TABLE transaction_tags (
    transaction_id  TEXT NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    tag_id          TEXT NOT NULL,
    PRIMARY KEY (transaction_id, tag_id)
) STRICT, WITHOUT ROWID;
INSERT INTO transaction_tags VALUES('428b1995-bb4b-407e-ac3e-99df9d1ba52f','Date night');
INSERT INTO transaction_tags VALUES('428b1995-bb4b-407e-ac3e-99df9d1ba52f','Shared/Household');
INSERT INTO transaction_tags VALUES('428b1995-bb4b-407e-ac3e-99df9d1ba52f','🏖 beach');
CREATE TABLE transaction_tombstones (
    id          TEXT PRIMARY KEY,
    deleted_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;
INSERT INTO transaction_tombstones VALUES('0e2f7dfa-f99b-4df4-930b-fcde43a19503','2026-11-27T07:40:48.140130Z');
INSERT INTO transaction_tombstones VALUES('ecb81682-326e-4db4-9fb6-86b52018f481','2026-11-27T07:40:48.950364Z');
CREATE TABLE transaction_history (
    seq             INTEGER PRIMARY KEY, -- rowids only grow: history rows are never deleted
    transaction_id  TEXT NOT NULL,
    change          TEXT NOT NULL CHECK (change IN ('created', 'updated', 'settled', 'deleted')),
    observed_at     TEXT NOT NULL,
    raw             TEXT
, observed_epoch INTEGER, observed_local TEXT, observed_date TEXT, observed_month TEXT) STRICT;
INSERT INTO transaction_history VALUES(1,'27214796-106b-4593-b6d4-b9081af297ff','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(2,'1b78cdcd-c9c2-4c6e-bdf6-767621ba8a78','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(3,'4a5e8ca7-2461-4ac5-9ee2-149b5a44bede','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(4,'37e9a570-825a-49dc-b963-9e04678e895b','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(5,'c1051d43-f7cb-42bc-818b-773ec753f51b','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(6,'12111d56-0486-43b1-a451-256ab9e24c86','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(7,'2ef228c6-06b9-4e5c-9e78-bb296f8fff66','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(8,'d3aff55b-1757-4522-bfe9-721d1c8d072c','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(9,'179448e0-3ea3-4b4e-9505-cdacbd598435','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(10,'242117b4-7a38-461f-98ad-4b5ce8e02bdd','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(11,'bbd83de6-7941-4143-bc3b-63ee7540bab8','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(12,'69bcdf64-a397-46ec-b70f-2a48a9221532','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(13,'6886582b-97b7-4570-8165-904e7c888ac3','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(14,'d3cdf5a0-279a-45ad-ae40-a853762fcf33','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(15,'48f7afd4-c2f1-4f43-8222-b88ae7518e28','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(16,'dc0cbadb-cdcc-48fb-bb3b-fa957ae3e60e','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(17,'e5d45042-f9f9-4408-a144-e15554d9f765','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(18,'d29efcba-02ba-4eb1-9342-a7b9ada5ba78','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(19,'428b1995-bb4b-407e-ac3e-99df9d1ba52f','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(20,'07098f6d-8cb2-4231-b8e2-4e08969d7711','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(21,'71f96608-3aa1-4cc4-9d31-f7728bbf957a','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(22,'9ab10125-8695-4824-8dd5-22061e979e2b','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(23,'9883c6da-6946-4866-b835-a22fc8ad1e58','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(24,'22289502-bd8b-4d0b-aa01-23c8ec660ebc','created','2026-11-27T07:40:46.465000Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(25,'6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','created','2026-11-27T07:40:46.536037Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(26,'14a79153-7903-4f6d-93f7-c1a438f10be5','created','2026-11-27T07:40:46.940240Z',NULL,1795765246,'2026-11-27 18:40:46','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(27,'0e2f7dfa-f99b-4df4-930b-fcde43a19503','created','2026-11-27T07:40:47.341167Z',NULL,1795765247,'2026-11-27 18:40:47','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(28,'6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','settled','2026-11-27T07:40:47.738770Z','{"type":"transactions","id":"6198a8c5-c3d2-43b5-aab7-f7de46d4cb00","attributes":{"status":"HELD","rawText":"Seven Seeds","description":"Seven Seeds","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-5.20","valueInBaseUnits":-520},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-5.20","valueInBaseUnits":-520},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":null,"createdAt":"2026-11-27T18:40:46+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"restaurants-and-cafes"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/restaurants-and-cafes"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"}}',1795765247,'2026-11-27 18:40:47','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(29,'0e2f7dfa-f99b-4df4-930b-fcde43a19503','deleted','2026-11-27T07:40:48.140130Z','{"type":"transactions","id":"0e2f7dfa-f99b-4df4-930b-fcde43a19503","attributes":{"status":"HELD","rawText":"Hotel deposit","description":"Hotel deposit","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-200.00","valueInBaseUnits":-20000},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-200.00","valueInBaseUnits":-20000},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":null,"createdAt":"2026-11-27T18:40:47+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/0e2f7dfa-f99b-4df4-930b-fcde43a19503"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":null,"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/0e2f7dfa-f99b-4df4-930b-fcde43a19503/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/0e2f7dfa-f99b-4df4-930b-fcde43a19503/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/0e2f7dfa-f99b-4df4-930b-fcde43a19503"}}',1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(30,'ecb81682-326e-4db4-9fb6-86b52018f481','created','2026-11-27T07:40:48.558697Z',NULL,1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(31,'ecb81682-326e-4db4-9fb6-86b52018f481','deleted','2026-11-27T07:40:48.950364Z','{"type":"transactions","id":"ecb81682-326e-4db4-9fb6-86b52018f481","attributes":{"status":"HELD","rawText":"Ampol","description":"Ampol","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-60.10","valueInBaseUnits":-6010},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-60.10","valueInBaseUnits":-6010},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"4821"},"settledAt":null,"createdAt":"2026-11-27T18:40:48+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Bobby"},"deepLinkURL":"up://transaction/ecb81682-326e-4db4-9fb6-86b52018f481"},"relationships":{"account":{"data":{"type":"accounts","id":"e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"},"links":{"related":"http://127.0.0.1:35951/api/v1/accounts/e77b7d59-e422-4a78-b36e-3ad9af4ddc8f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"fuel"},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/ecb81682-326e-4db4-9fb6-86b52018f481/relationships/category","related":"http://127.0.0.1:35951/api/v1/categories/fuel"}},"parentCategory":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:35951/api/v1/categories/transport"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/ecb81682-326e-4db4-9fb6-86b52018f481/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:35951/api/v1/transactions/ecb81682-326e-4db4-9fb6-86b52018f481"}}',1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11');
INSERT INTO transaction_history VALUES(32,'53ae9aa3-66a3-4a89-9567-68dd545e9c08','created','2026-11-27T07:40:48.962098Z',NULL,1795765248,'2026-11-27 18:40:48','2026-11-27','2026-11');
CREATE TABLE attachments (
    id                   TEXT PRIMARY KEY,
    transaction_id       TEXT NOT NULL,
    created_at           TEXT,
    file_url             TEXT,
    file_url_expires_at  TEXT NOT NULL,
    file_extension       TEXT,
    file_content_type    TEXT,
    raw                  TEXT NOT NULL
, local_path TEXT, local_sha256 TEXT, download_error TEXT, download_attempts INTEGER NOT NULL DEFAULT 0) STRICT;
INSERT INTO attachments VALUES('40a0a378-0348-4b60-97e4-7f549b2e3a15','d3cdf5a0-279a-45ad-ae40-a853762fcf33','2026-04-12T19:15:19+10:00','http://127.0.0.1:35951/files/attachments/40a0a378-0348-4b60-97e4-7f549b2e3a15.jpg?expires=1795766146&signature=295dde3226602b707d12994ebd83af6dfc3ca24baab965b5f1ee7342f2a0a949','2026-11-27T18:55:46+11:00','jpg','image/jpeg','{"type":"attachments","id":"40a0a378-0348-4b60-97e4-7f549b2e3a15","attributes":{"createdAt":"2026-04-12T19:15:19+10:00","fileURL":"http://127.0.0.1:35951/files/attachments/40a0a378-0348-4b60-97e4-7f549b2e3a15.jpg?expires=1795766146&signature=295dde3226602b707d12994ebd83af6dfc3ca24baab965b5f1ee7342f2a0a949","fileURLExpiresAt":"2026-11-27T18:55:46+11:00","fileExtension":"jpg","fileContentType":"image/jpeg"},"relationships":{"transaction":{"data":{"type":"transactions","id":"d3cdf5a0-279a-45ad-ae40-a853762fcf33"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/d3cdf5a0-279a-45ad-ae40-a853762fcf33"}}},"links":{"self":"http://127.0.0.1:35951/api/v1/attachments/40a0a378-0348-4b60-97e4-7f549b2e3a15"}}',NULL,NULL,NULL,0);
CREATE TABLE sync_runs (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    kind         TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    status       TEXT NOT NULL,
    requests     INTEGER NOT NULL DEFAULT 0,
    upserted     INTEGER NOT NULL DEFAULT 0,
    deleted      INTEGER NOT NULL DEFAULT 0,
    error        TEXT
) STRICT;
INSERT INTO sync_runs VALUES(1,'full','2026-11-27T07:40:46.375971Z','2026-11-27T07:40:46.512394Z','ok',6,24,0,NULL);
CREATE TABLE sync_state (
    name             TEXT PRIMARY KEY,
    started_at       TEXT NOT NULL,
    next_page_url    TEXT,
    pages            INTEGER NOT NULL DEFAULT 0,
    owner            TEXT, -- token of the sync writing this listing; another one taking over makes the first stop
    last_success_at  TEXT,
    error_count      INTEGER NOT NULL DEFAULT 0
, start_seq INTEGER) STRICT;
INSERT INTO sync_state VALUES('transactions','2026-11-27T07:40:46.463155Z',NULL,1,'E3WPQAP5XKIX7JDQ6FUHJCIBTK','2026-11-27T07:40:46.494801Z',0,0);
CREATE TABLE sync_seen (
    page  INTEGER PRIMARY KEY,
    ids   TEXT NOT NULL
) STRICT;
CREATE TABLE webhook_events (
    id              TEXT PRIMARY KEY,
    event_type      TEXT NOT NULL,
    webhook_id      TEXT NOT NULL,
    transaction_id  TEXT,
    created_at      TEXT NOT NULL,
    received_at     TEXT NOT NULL,
    processed_at    TEXT,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT,
    next_attempt_at TEXT NOT NULL DEFAULT '',
    source          TEXT NOT NULL DEFAULT 'webhook',
    body            TEXT NOT NULL
) STRICT;
INSERT INTO webhook_events VALUES('e64ca390-2650-46cf-92c7-4d700932ee3b','TRANSACTION_CREATED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','2026-11-27T18:40:46+11:00','2026-11-27T07:40:46.528349Z','2026-11-27T07:40:46.536037Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"e64ca390-2650-46cf-92c7-4d700932ee3b","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-11-27T18:40:46+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"}}}}}');
INSERT INTO webhook_events VALUES('aa471b34-bbee-424e-8aac-a2ef378598d7','TRANSACTION_CREATED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','14a79153-7903-4f6d-93f7-c1a438f10be5','2026-11-27T18:40:46+11:00','2026-11-27T07:40:46.936392Z','2026-11-27T07:40:46.940240Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"aa471b34-bbee-424e-8aac-a2ef378598d7","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-11-27T18:40:46+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"14a79153-7903-4f6d-93f7-c1a438f10be5"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/14a79153-7903-4f6d-93f7-c1a438f10be5"}}}}}');
INSERT INTO webhook_events VALUES('cb622d67-b45b-4b89-8cd5-70d8b88984c8','TRANSACTION_CREATED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','0e2f7dfa-f99b-4df4-930b-fcde43a19503','2026-11-27T18:40:47+11:00','2026-11-27T07:40:47.336910Z','2026-11-27T07:40:47.341167Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"cb622d67-b45b-4b89-8cd5-70d8b88984c8","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-11-27T18:40:47+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"0e2f7dfa-f99b-4df4-930b-fcde43a19503"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/0e2f7dfa-f99b-4df4-930b-fcde43a19503"}}}}}');
INSERT INTO webhook_events VALUES('48ab58ef-7200-407e-b123-c8bea2bf8df1','TRANSACTION_SETTLED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','2026-11-27T18:40:47+11:00','2026-11-27T07:40:47.737483Z','2026-11-27T07:40:47.738770Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"48ab58ef-7200-407e-b123-c8bea2bf8df1","attributes":{"eventType":"TRANSACTION_SETTLED","createdAt":"2026-11-27T18:40:47+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00"}}}}}');
INSERT INTO webhook_events VALUES('347087b3-88b5-4e82-9c4c-89028e7f0a11','TRANSACTION_DELETED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','0e2f7dfa-f99b-4df4-930b-fcde43a19503','2026-11-27T18:40:48+11:00','2026-11-27T07:40:48.137969Z','2026-11-27T07:40:48.140130Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"347087b3-88b5-4e82-9c4c-89028e7f0a11","attributes":{"eventType":"TRANSACTION_DELETED","createdAt":"2026-11-27T18:40:48+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"0e2f7dfa-f99b-4df4-930b-fcde43a19503"}}}}}');
INSERT INTO webhook_events VALUES('c657ba0f-6123-4835-a210-eead3df4c952','TRANSACTION_CREATED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','ecb81682-326e-4db4-9fb6-86b52018f481','2026-11-27T18:40:48+11:00','2026-11-27T07:40:48.538772Z','2026-11-27T07:40:48.558697Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"c657ba0f-6123-4835-a210-eead3df4c952","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-11-27T18:40:48+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"ecb81682-326e-4db4-9fb6-86b52018f481"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/ecb81682-326e-4db4-9fb6-86b52018f481"}}}}}');
INSERT INTO webhook_events VALUES('f496b679-01f6-4746-9a51-9722af31e73a','TRANSACTION_DELETED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','ecb81682-326e-4db4-9fb6-86b52018f481','2026-11-27T18:40:48+11:00','2026-11-27T07:40:48.939330Z','2026-11-27T07:40:48.950364Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"f496b679-01f6-4746-9a51-9722af31e73a","attributes":{"eventType":"TRANSACTION_DELETED","createdAt":"2026-11-27T18:40:48+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"ecb81682-326e-4db4-9fb6-86b52018f481"}}}}}');
INSERT INTO webhook_events VALUES('34aded33-b1a7-440e-9d29-a821fc018832','TRANSACTION_CREATED','a9200fcc-c8ad-48e4-ba4c-715da1408ccb','53ae9aa3-66a3-4a89-9567-68dd545e9c08','2026-11-27T18:40:48+11:00','2026-11-27T07:40:48.948225Z','2026-11-27T07:40:48.962098Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"34aded33-b1a7-440e-9d29-a821fc018832","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-11-27T18:40:48+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"a9200fcc-c8ad-48e4-ba4c-715da1408ccb"},"links":{"related":"http://127.0.0.1:35951/api/v1/webhooks/a9200fcc-c8ad-48e4-ba4c-715da1408ccb"}},"transaction":{"data":{"type":"transactions","id":"53ae9aa3-66a3-4a89-9567-68dd545e9c08"},"links":{"related":"http://127.0.0.1:35951/api/v1/transactions/53ae9aa3-66a3-4a89-9567-68dd545e9c08"}}}}}');
CREATE TABLE webhooks (
    id           TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    description  TEXT,
    secret_key   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    deleted_at   TEXT
, person TEXT) STRICT;
INSERT INTO webhooks VALUES('a9200fcc-c8ad-48e4-ba4c-715da1408ccb','http://127.0.0.1:39801/webhook','bankmirror demo','','2026-11-27T18:40:46+11:00',NULL,NULL);
CREATE TABLE webhook_delivery_logs (
    id               TEXT PRIMARY KEY,
    webhook_id       TEXT NOT NULL,
    event_id         TEXT NOT NULL,
    delivery_status  TEXT NOT NULL,
    status_code      INTEGER,
    created_at       TEXT NOT NULL,
    request_body     TEXT NOT NULL,
    response_body    TEXT
) STRICT;
CREATE TABLE daemon_state (
		key        TEXT PRIMARY KEY,
		value      TEXT NOT NULL, -- JSON
		updated_at TEXT NOT NULL
	) STRICT;
INSERT INTO daemon_state VALUES('demo_mirror','{"note":"written by bankmirror demo against its simulated bank"}','2026-11-27T07:40:46.356132Z');
INSERT INTO daemon_state VALUES('daemon','{"pid":32167,"budget":{"Known":true,"Remaining":982,"Reserve":50,"ObservedAt":"2026-11-27T07:40:48.961857863Z","Waiting":false,"WaitUntil":"0001-01-01T00:00:00Z","WaitReason":"","RateLimited":0},"worker":{"Paused":false,"PausedUntil":"0001-01-01T00:00:00Z","PauseCause":"","Unauthorized":false},"token":{"rejected":false,"replaced":0},"people":[{"name":"me","token":{"rejected":false,"replaced":0},"budget":{"Known":true,"Remaining":982,"Reserve":50,"ObservedAt":"2026-11-27T07:40:48.961857863Z","Waiting":false,"WaitUntil":"0001-01-01T00:00:00Z","WaitReason":"","RateLimited":0}}],"stopped":true}','2026-11-27T07:40:49.340473Z');
INSERT INTO daemon_state VALUES('rules_cursor','32','2026-11-27T07:40:48.968960Z');
INSERT INTO daemon_state VALUES('probe','{}','2026-11-27T07:40:46.400376Z');
CREATE TABLE sync_pending_events (
		id TEXT PRIMARY KEY
	) STRICT, WITHOUT ROWID;
CREATE TABLE mirror_settings (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) STRICT;
INSERT INTO mirror_settings VALUES('timezone','Australia/Melbourne');
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','transactions_search','transactions_search',0,'CREATE VIRTUAL TABLE transactions_search USING fts5(
    description, message, note, raw_text, tags,
    tokenize = ''unicode61 remove_diacritics 2''
)');
CREATE TABLE IF NOT EXISTS 'transactions_search_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO transactions_search_data VALUES(1,X'1b2f09004406');
INSERT INTO transactions_search_data VALUES(10,X'000000000108080008010101020101030101040101050101060101070101080101');
INSERT INTO transactions_search_data VALUES(137438953473,X'000003a00530303738350306010303080601030303060103030706010303010431303434100601030301043333323105060103030806010303010435303132130601030405060103040104616c6469070802010302020875737472616c69611406010304010562656163681306010407020872756e737769636b02060103040e0601030401076361726c746f6e0c0601030402046f6c657303080201030208080201030203080201030207080201030204086c696e67776f6f64170601030303016d11060103060307736d6574696361060601030302037574730208030103030101640a08030103030202616e1308020103020508020103020302746513060104020301790802050205696e6e65720f06010104010465617473110803010303010766696e616e63651408030103030305747a726f790506010304080601030402026f720f060101030203726f6d0902030105676f6d657a170204020472696c6c0a080201030203076f636572696573080601010201060101020205757a6d616e170202020279671706010302010468656c70110601030402086f757365686f6c6413060104050104696b656101080201030202076e74657265737404020201046a75737402080201030201056b6d61727410080201030201036c7464160601030401056d6563636106080201030203076c626f75726e6506060103040c06010304020575727068791302030502030701731306010303050601030301066e677579656e0f0203020469676874130601040301077061726b696e671208030103030206726573746f6e070601030402027479160601030301057261696e7908020402076963686d6f6e6401060103030206010304080601030403060103040506010305020601030403060103050101731302040502040204656564730c0803010303030376656e0c080201030202056861726564130601040402056f706869650f020203037574680a06010304020770656e64696e670902040205746f7265730706010303020579646e6579160601030501067468616e6b730f060101020302697308060101030106010103020769636b6574656b16080201030202016f0802030304796f7461140802010302020772616e73666572080202010202010475626572110a020103020501047765656b080601010401060101040205696c736f6e12080201030202096f6f6c776f727468730508020103020808020103020101791702030204617272610a060103050104f09f8ca708020603028f961306010406041a0b10100c0f0c140e1e0f080e0b091009060c0c0f1109080a0c130a090b0f0c0c0c0d0a0d130d0d0b0b0f0d090a2c090c0b0c0a0a0c0c0c0d0e0f060c0f0d100d17060b09');
INSERT INTO transactions_search_data VALUES(274877906945,X'0000001c06307365656473190803010303030376656e190802010302040d');
INSERT INTO transactions_search_data VALUES(412316860417,X'000000160b30776f6f6c776f727468731a080201030204');
INSERT INTO transactions_search_data VALUES(549755813889,X'0000002008306465706f7369741b08030103030105686f74656c1b0802010302040f');
INSERT INTO transactions_search_data VALUES(687194767361,X'0000001808306465706f7369741b010105686f74656c1b01040b');
INSERT INTO transactions_search_data VALUES(824633720833,X'000000110630616d706f6c1b080201030204');
INSERT INTO transactions_search_data VALUES(962072674305,X'0000000d0630616d706f6c1b0104');
INSERT INTO transactions_search_data VALUES(1099511627777,X'000000110630616d706f6c1b080201030204');
CREATE TABLE IF NOT EXISTS 'transactions_search_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO transactions_search_idx VALUES(1,X'',2);
INSERT INTO transactions_search_idx VALUES(2,X'',2);
INSERT INTO transactions_search_idx VALUES(3,X'',2);
INSERT INTO transactions_search_idx VALUES(4,X'',2);
INSERT INTO transactions_search_idx VALUES(5,X'',2);
INSERT INTO transactions_search_idx VALUES(6,X'',2);
INSERT INTO transactions_search_idx VALUES(7,X'',2);
INSERT INTO transactions_search_idx VALUES(8,X'',2);
CREATE TABLE IF NOT EXISTS 'transactions_search_content'(id INTEGER PRIMARY KEY, c0, c1, c2, c3, c4);
INSERT INTO transactions_search_content VALUES(1,'IKEA',NULL,NULL,'IKEA RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(2,'Just Cuts',NULL,NULL,'JUST CUTS BRUNSWICK',NULL);
INSERT INTO transactions_search_content VALUES(3,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(4,'Interest',NULL,NULL,NULL,NULL);
INSERT INTO transactions_search_content VALUES(5,'Woolworths',NULL,NULL,'WOOLWORTHS 3321 FITZROY',NULL);
INSERT INTO transactions_search_content VALUES(6,'Mecca',NULL,NULL,'MECCA COSMETICA MELBOURNE',NULL);
INSERT INTO transactions_search_content VALUES(7,'Aldi',NULL,NULL,'ALDI STORES - PRESTON',NULL);
INSERT INTO transactions_search_content VALUES(8,'Transfer to Rainy Day 🌧','Groceries this week',NULL,NULL,NULL);
INSERT INTO transactions_search_content VALUES(9,'Transfer from Spending','Groceries this week',NULL,NULL,NULL);
INSERT INTO transactions_search_content VALUES(10,'Grill''d',NULL,NULL,'GRILL''D SOUTH YARRA',NULL);
INSERT INTO transactions_search_content VALUES(11,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(12,'Seven Seeds',NULL,NULL,'SEVEN SEEDS CARLTON',NULL);
INSERT INTO transactions_search_content VALUES(13,'Woolworths',NULL,NULL,'WOOLWORTHS 3321 FITZROY',NULL);
INSERT INTO transactions_search_content VALUES(14,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(15,'Sophie Nguyen','Thanks for dinner 🙏',NULL,NULL,NULL);
INSERT INTO transactions_search_content VALUES(16,'Kmart',NULL,NULL,'KMART 1044 BRUNSWICK',NULL);
INSERT INTO transactions_search_content VALUES(17,'Uber Eats',NULL,NULL,'UBER *EATS HELP.UBER.COM',NULL);
INSERT INTO transactions_search_content VALUES(18,'Wilson Parking',NULL,NULL,'WILSON PARKING MELBOURNE',NULL);
INSERT INTO transactions_search_content VALUES(19,'Dan Murphy''s',NULL,NULL,'DAN MURPHYS 5012 RICHMOND','Date night Shared/Household 🏖 beach');
INSERT INTO transactions_search_content VALUES(20,'Toyota Finance',NULL,NULL,'TOYOTA FINANCE AUSTRALIA',NULL);
INSERT INTO transactions_search_content VALUES(21,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(22,'Ticketek',NULL,NULL,'TICKETEK PTY LTD SYDNEY',NULL);
INSERT INTO transactions_search_content VALUES(23,'Guzman y Gomez',NULL,NULL,'GYG COLLINGWOOD',NULL);
INSERT INTO transactions_search_content VALUES(24,'Dan Murphy''s',NULL,NULL,'DAN MURPHYS 5012 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(25,'Seven Seeds',NULL,NULL,'Seven Seeds',NULL);
INSERT INTO transactions_search_content VALUES(26,'Woolworths',NULL,NULL,'Woolworths',NULL);
INSERT INTO transactions_search_content VALUES(27,'Ampol',NULL,NULL,'Ampol',NULL);
CREATE TABLE IF NOT EXISTS 'transactions_search_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
INSERT INTO transactions_search_docsize VALUES(1,X'0100000200');
INSERT INTO transactions_search_docsize VALUES(2,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(3,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(4,X'0100000000');
INSERT INTO transactions_search_docsize VALUES(5,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(6,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(7,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(8,X'0503000000');
INSERT INTO transactions_search_docsize VALUES(9,X'0303000000');
INSERT INTO transactions_search_docsize VALUES(10,X'0200000400');
INSERT INTO transactions_search_docsize VALUES(11,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(12,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(13,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(14,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(15,X'0203000000');
INSERT INTO transactions_search_docsize VALUES(16,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(17,X'0200000500');
INSERT INTO transactions_search_docsize VALUES(18,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(19,X'0300000406');
INSERT INTO transactions_search_docsize VALUES(20,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(21,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(22,X'0100000400');
INSERT INTO transactions_search_docsize VALUES(23,X'0300000200');
INSERT INTO transactions_search_docsize VALUES(24,X'0300000400');
INSERT INTO transactions_search_docsize VALUES(25,X'0200000200');
INSERT INTO transactions_search_docsize VALUES(26,X'0100000100');
INSERT INTO transactions_search_docsize VALUES(27,X'0100000100');
CREATE TABLE IF NOT EXISTS 'transactions_search_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO transactions_search_config VALUES('version',4);
CREATE TABLE people (
    name          TEXT PRIMARY KEY,  -- [a-z0-9_-], 1 to 32 characters
    customer_id   TEXT,              -- /util/ping's customer id, once known
    display_name  TEXT,              -- performingCustomer.displayName on their own transactions, once learned
    token_state   TEXT NOT NULL DEFAULT 'unknown', -- 'ok', 'revoked' or 'unknown'
    token_error   TEXT,              -- the bank's last refusal of the token, if any
    added_at      TEXT NOT NULL,     -- first configured
    removed_at    TEXT,              -- no longer configured: their history stays
    last_sync_at  TEXT               -- their last successful listing
) STRICT;
INSERT INTO people VALUES('me',NULL,'Bobby','ok',NULL,'2026-11-27T07:40:46.370615Z',NULL,'2026-11-27T07:40:46.514720Z');
CREATE TABLE account_people (
    account_id  TEXT NOT NULL,
    person      TEXT NOT NULL,
    seen_at     TEXT NOT NULL, listed INTEGER NOT NULL DEFAULT 1,       -- the last listing of the person's accounts that had it
    PRIMARY KEY (account_id, person)
) STRICT, WITHOUT ROWID;
INSERT INTO account_people VALUES('96411555-3701-419c-8040-5c4d510b52ec','me','2026-11-27T07:40:46.408617Z',1);
INSERT INTO account_people VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','me','2026-11-27T07:40:46.408617Z',1);
INSERT INTO account_people VALUES('c14fe0b1-490a-43c3-adaa-eaef47687de4','me','2026-11-27T07:40:46.408617Z',1);
INSERT INTO account_people VALUES('e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b','me','2026-11-27T07:40:46.408617Z',1);
INSERT INTO account_people VALUES('e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','me','2026-11-27T07:40:46.408617Z',1);
CREATE TABLE rule_applications (
    id               INTEGER PRIMARY KEY,
    transaction_id   TEXT NOT NULL,
    rule             TEXT NOT NULL,    -- the rule's name in the file
    action           TEXT NOT NULL CHECK (action IN ('category', 'tag', 'exclude_from_spending', 'note')),
    value            TEXT NOT NULL,    -- category id ('' removes it), tag label, '1'/'0', note
    previous         TEXT,             -- the category the transaction had (action 'category')
    applied_at       TEXT NOT NULL,
    source           TEXT NOT NULL,    -- 'arrival', 'first_sync' or 'apply'
    write_back       INTEGER NOT NULL, -- 1: the bank must get it; 0: mirror only, or not asked
    written_back_at  TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  TEXT NOT NULL DEFAULT '',
    error            TEXT,             -- the last failure, or why it was not written back
    UNIQUE (transaction_id, rule, action, value)
) STRICT;
CREATE TABLE transaction_annotations (
    transaction_id         TEXT PRIMARY KEY,
    exclude_from_spending  INTEGER,  -- 1 leaves it out of v_monthly_spending
    exclude_rule           TEXT,
    note                   TEXT,
    note_rule              TEXT
) STRICT, WITHOUT ROWID;
CREATE TABLE alert_outbox (
    id               INTEGER PRIMARY KEY,
    alert_key        TEXT NOT NULL,     -- what makes the alert one: 'rule:NAME:TXID', 'low_balance:ACCOUNT:DATE', ...
    channel          TEXT NOT NULL,     -- a [channel.NAME] of the rules file
    kind             TEXT NOT NULL,     -- 'rule', 'low_balance', 'recurring_changed', 'held', 'health', 'test', ...
    title            TEXT NOT NULL,
    message          TEXT NOT NULL,
    payload          TEXT NOT NULL,     -- JSON: the generic webhook's body
    created_at       TEXT NOT NULL,
    not_before       TEXT NOT NULL DEFAULT '', -- held back until then (quiet hours, backoff)
    attempts         INTEGER NOT NULL DEFAULT 0,
    sent_at          TEXT,
    failed_at        TEXT,              -- given up
    error            TEXT,
    UNIQUE (alert_key, channel)
) STRICT;
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('sync_runs',1);
CREATE INDEX transactions_category ON transactions (category_id);
CREATE INDEX transactions_held ON transactions (status) WHERE status = 'HELD';
CREATE INDEX transaction_tags_tag ON transaction_tags (tag_id);
CREATE INDEX webhook_events_pending ON webhook_events (next_attempt_at) WHERE processed_at IS NULL;
CREATE INDEX transactions_created_epoch ON transactions (created_epoch);
CREATE INDEX transaction_history_observed_epoch ON transaction_history (observed_epoch);
CREATE VIEW v_daily_balances AS
WITH RECURSIVE
    observed AS (
        SELECT account_id, observed_date AS date, observed_at, balance_currency, balance_value, balance_base_units,
            row_number() OVER (PARTITION BY account_id, observed_date ORDER BY observed_epoch DESC, observed_at DESC) AS n
        FROM account_balances
        WHERE observed_date IS NOT NULL
    ),
    last_of_day AS (SELECT * FROM observed WHERE n = 1),
    days (account_id, date) AS (
        SELECT account_id, min(date) FROM last_of_day GROUP BY account_id
        UNION ALL
        SELECT account_id, date(date, '+1 day') FROM days
        WHERE date < (SELECT max(date) FROM last_of_day)
    ),
    filled AS (
        SELECT d.account_id, d.date, l.date AS observed_date, l.observed_at, l.balance_currency, l.balance_value,
            l.balance_base_units,
            count(l.date) OVER (PARTITION BY d.account_id ORDER BY d.date) AS run
        FROM days d
        LEFT JOIN last_of_day l ON l.account_id = d.account_id AND l.date = d.date
    )
SELECT
    f.date,                                              -- 'YYYY-MM-DD' in the customer's zone
    f.account_id,
    a.display_name AS account_name,
    a.account_type,
    CAST(first_value(f.balance_value) OVER w AS REAL) AS balance, -- dollars at the end of the day
    first_value(f.balance_base_units) OVER w AS balance_base_units,
    first_value(f.balance_currency) OVER w AS currency,
    first_value(f.observed_at) OVER w AS observed_at,    -- when that balance was observed
    (f.observed_date IS NOT NULL) AS is_observed         -- 1 when a balance was observed that day
FROM filled f
LEFT JOIN accounts a ON a.id = f.account_id
WINDOW w AS (PARTITION BY f.account_id, f.run ORDER BY f.date)
;
CREATE VIEW v_history AS
SELECT
    h.seq,
    h.transaction_id,
    h.change,                                            -- created, updated, settled, deleted
    h.observed_at,                                       -- when the mirror saw it (UTC)
    h.observed_epoch,
    h.observed_local,
    h.observed_date,
    h.observed_month,
    json_extract(h.version, '$.attributes.description') AS description,
    json_extract(h.version, '$.relationships.account.data.id') AS account_id,
    a.display_name AS account_name,
    json_extract(h.version, '$.attributes.status') AS status,
    CAST(json_extract(h.version, '$.attributes.amount.value') AS REAL) AS amount,
    json_extract(h.version, '$.attributes.amount.valueInBaseUnits') AS amount_base_units,
    json_extract(h.version, '$.relationships.category.data.id') AS category_id,
    json_extract(h.raw, '$.attributes.status') AS previous_status, -- NULL for 'created'
    json_extract(h.raw, '$.attributes.amount.valueInBaseUnits') AS previous_amount_base_units,
    json_extract(h.raw, '$.relationships.category.data.id') AS previous_category_id,
    EXISTS (SELECT 1 FROM transactions t WHERE t.id = h.transaction_id) AS is_live -- 1 while the bank still has it
FROM (
    SELECT h.*,
        CASE WHEN h.change = 'deleted' THEN h.raw ELSE coalesce(n.raw, t.raw, h.raw) END AS version
    FROM transaction_history h
    -- the next change of the same transaction, whose raw is the version this change made
    LEFT JOIN transaction_history n ON n.seq =
        (SELECT min(x.seq) FROM transaction_history x WHERE x.transaction_id = h.transaction_id AND x.seq > h.seq)
    LEFT JOIN transactions t ON t.id = h.transaction_id
) h
LEFT JOIN accounts a ON a.id = json_extract(h.version, '$.relationships.account.data.id')
;
CREATE INDEX account_people_person ON account_people (person);
CREATE INDEX transactions_household_paired ON transactions (household_transfer_id)
    WHERE household_transfer_id IS NOT NULL;
CREATE VIEW v_account_people AS
SELECT
    a.id AS account_id,
    a.display_name AS account_name,
    a.account_type,                             -- TRANSACTIONAL, SAVER or HOME_LOAN
    a.ownership_type,                           -- INDIVIDUAL or JOINT
    -- the names of the people whose tokens list the account, sorted, joined with ','; NULL when none is recorded
    (SELECT group_concat(person, ',') FROM (SELECT person FROM account_people ap WHERE ap.account_id = a.id ORDER BY person)) AS people,
    (SELECT count(*) FROM account_people ap WHERE ap.account_id = a.id) AS people_count,
    -- those of them whose token lists it now (listed, and not removed): the tokens to list it through
    (SELECT group_concat(person, ',') FROM (SELECT ap.person FROM account_people ap JOIN people p ON p.name = ap.person
        WHERE ap.account_id = a.id AND ap.listed AND p.removed_at IS NULL ORDER BY ap.person)) AS listed_by,
    (SELECT max(seen_at) FROM account_people ap WHERE ap.account_id = a.id) AS seen_at, -- the last listing that had it
    a.gone_at                                   -- when no token listed it any more; NULL while one does
FROM accounts a
;
CREATE VIEW household_transfer_candidates AS
SELECT
    x.id,
    (SELECT y.id FROM transactions y
     WHERE y.amount_base_units = -x.amount_base_units
        AND y.created_epoch BETWEEN x.created_epoch - 600 AND x.created_epoch + 600
        AND y.transfer_account_id IS NULL
        AND y.amount_currency = x.amount_currency
        AND y.account_id <> x.account_id
        AND (SELECT people FROM v_account_people WHERE account_id = y.account_id)
            <> (SELECT people FROM v_account_people WHERE account_id = x.account_id)
     ORDER BY abs(y.created_epoch - x.created_epoch), y.id
     LIMIT 1) AS best_id
FROM transactions x
WHERE x.transfer_account_id IS NULL AND x.amount_base_units <> 0 AND x.created_epoch IS NOT NULL;
CREATE VIEW household_transfer_pairs AS
SELECT a.id, a.best_id AS other_id
FROM household_transfer_candidates a
WHERE a.best_id IS NOT NULL
    AND (SELECT b.best_id FROM household_transfer_candidates b WHERE b.id = a.best_id) = a.id;
CREATE TRIGGER household_transfer_insert AFTER INSERT ON transactions
WHEN new.transfer_account_id IS NULL AND new.amount_base_units <> 0 AND new.created_epoch IS NOT NULL
    AND (SELECT count(DISTINCT person) FROM account_people) > 1
BEGIN
    UPDATE transactions SET household_transfer_id = c.other_id
    FROM (SELECT x.id, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
          FROM transactions x
          WHERE x.amount_base_units IN (new.amount_base_units, -new.amount_base_units)
            AND x.created_epoch BETWEEN new.created_epoch - 1200 AND new.created_epoch + 1200
            AND x.transfer_account_id IS NULL) AS c
    WHERE transactions.id = c.id AND transactions.household_transfer_id IS NOT c.other_id;
END;
CREATE TRIGGER household_transfer_delete AFTER DELETE ON transactions
WHEN old.household_transfer_id IS NOT NULL OR (old.transfer_account_id IS NULL AND old.amount_base_units <> 0
    AND old.created_epoch IS NOT NULL AND (SELECT count(DISTINCT person) FROM account_people) > 1)
BEGIN
    UPDATE transactions SET household_transfer_id = c.other_id
    FROM (SELECT x.id, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
          FROM transactions x
          WHERE x.amount_base_units IN (old.amount_base_units, -old.amount_base_units)
            AND x.created_epoch BETWEEN old.created_epoch - 1200 AND old.created_epoch + 1200
            AND x.transfer_account_id IS NULL) AS c
    WHERE transactions.id = c.id AND transactions.household_transfer_id IS NOT c.other_id;
END;
CREATE TRIGGER household_transfer_update AFTER UPDATE OF amount_base_units, amount_currency, created_epoch,
    transfer_account_id, account_id ON transactions
WHEN (new.amount_base_units IS NOT old.amount_base_units OR new.amount_currency IS NOT old.amount_currency
        OR new.created_epoch IS NOT old.created_epoch OR new.transfer_account_id IS NOT old.transfer_account_id
        OR new.account_id IS NOT old.account_id)
    AND (old.household_transfer_id IS NOT NULL OR (SELECT count(DISTINCT person) FROM account_people) > 1)
BEGIN
    UPDATE transactions SET household_transfer_id = c.other_id
    FROM (SELECT x.id, (SELECT p.other_id FROM household_transfer_pairs p WHERE p.id = x.id) AS other_id
          FROM transactions x
          WHERE (x.amount_base_units IN (old.amount_base_units, -old.amount_base_units)
                AND x.created_epoch BETWEEN old.created_epoch - 1200 AND old.created_epoch + 1200
                AND x.transfer_account_id IS NULL)
            OR (x.amount_base_units IN (new.amount_base_units, -new.amount_base_units)
                AND x.created_epoch BETWEEN new.created_epoch - 1200 AND new.created_epoch + 1200
                AND x.transfer_account_id IS NULL)
            OR x.id = new.id) AS c
    WHERE transactions.id = c.id AND transactions.household_transfer_id IS NOT c.other_id;
END;
CREATE VIEW v_monthly_income AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    account_id,
    account_name,
    account_type,
    coalesce(transaction_type, 'Other') AS income_type,  -- the bank's transactionType: 'Salary', 'Interest', ...
    sum(amount_base_units) / 100.0 AS total_income,      -- dollars
    sum(amount_base_units) AS total_income_base_units,   -- cents
    count(*) AS count
FROM v_transactions
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund AND NOT offsets_spending
    AND NOT household_transfer
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, account_id, coalesce(transaction_type, 'Other')
;
CREATE VIEW v_monthly_income_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known
    account_id,
    account_name,
    account_type,
    coalesce(transaction_type, 'Other') AS income_type,  -- the bank's transactionType: 'Salary', 'Interest', ...
    sum(amount_base_units) / 100.0 AS total_income,      -- dollars
    sum(amount_base_units) AS total_income_base_units,   -- cents
    count(*) AS count,
    sum(household_transfer) AS household_transfer_count, -- of which payments from another person of the household
    sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers -- dollars of them
FROM v_transactions
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund AND NOT offsets_spending
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, person, account_id, coalesce(transaction_type, 'Other')
;
CREATE VIEW v_ledger AS
SELECT
    created_date,                               -- 'YYYY-MM-DD' in the customer's zone
    created_local,                              -- 'YYYY-MM-DD HH:MM:SS' in the customer's zone
    description,
    amount,                                     -- signed dollars: negative is money out
    currency,
    account_name,
    parent_category_name,
    category_name,
    tags,                                       -- labels, sorted, joined with ','
    status,                                     -- HELD or SETTLED
    settled_date,
    message,
    note,
    foreign_amount,
    foreign_amount_currency,
    transaction_type,
    transfer_account_name,
    is_transfer,
    is_refund,
    is_interest,
    round_up_amount,
    cashback_amount,
    account_type,
    id,
    account_id,
    category_id,
    created_epoch,                              -- what --since and --until compare (an instant)
    offsets_spending,                           -- 1 for money in netted in v_monthly_spending
    person,                                     -- who made it (v_transactions.person)
    household_transfer                          -- 1 for a side of a payment between two people of the household
FROM v_transactions
;
CREATE INDEX rule_applications_pending ON rule_applications (next_attempt_at)
    WHERE write_back = 1 AND written_back_at IS NULL;
CREATE INDEX alert_outbox_due ON alert_outbox (not_before) WHERE sent_at IS NULL AND failed_at IS NULL;
CREATE VIEW v_transactions AS
SELECT
    t.id,
    t.account_id,
    a.display_name AS account_name,
    t.status,                                   -- HELD or SETTLED
    t.created_at,                               -- as the bank sent it
    t.settled_at,                               -- as the bank sent it; NULL while HELD
    t.description,
    t.message,
    t.raw_text,
    CAST(t.amount_value AS REAL) AS amount,     -- signed dollars: negative is money out
    t.amount_currency AS currency,
    t.amount_base_units,                        -- signed cents
    t.foreign_amount_value,
    t.foreign_amount_currency,
    t.category_id,
    c.name AS category_name,
    t.parent_category_id,
    pc.name AS parent_category_name,
    -- the tag labels, sorted, joined with ',' (ambiguous when a label holds a comma: use tags_json)
    (SELECT group_concat(tag_id, ',') FROM (SELECT tag_id FROM transaction_tags tt WHERE tt.transaction_id = t.id ORDER BY tag_id)) AS tags,
    t.transfer_account_id,
    t.note,
    t.performing_customer,
    t.card_purchase_method,
    t.transaction_type,
    -- columns of schema version 5
    a.account_type,                             -- TRANSACTIONAL, SAVER or HOME_LOAN
    a.ownership_type,                           -- INDIVIDUAL or JOINT
    ta.display_name AS transfer_account_name,   -- the other account of a transfer between own accounts
    CASE WHEN t.category_id IS NULL THEN NULL
         ELSE coalesce(pc.name || ' / ', '') || coalesce(c.name, t.category_id) END AS category_path, -- 'Parent / Child'
    -- the tag labels as a JSON array, sorted: json_each(tags_json) lists them
    (SELECT json_group_array(tag_id) FROM (SELECT tag_id FROM transaction_tags tt WHERE tt.transaction_id = t.id ORDER BY tag_id)) AS tags_json,
    t.created_epoch,                            -- see the X_epoch/_local/_date/_month columns in money_views.sql
    t.created_local,
    t.created_date,
    t.created_month,
    t.settled_epoch,
    t.settled_local,
    t.settled_date,
    t.settled_month,
    CAST(t.foreign_amount_value AS REAL) AS foreign_amount, -- signed, in foreign_amount_currency
    t.foreign_amount_base_units,
    CAST(t.hold_amount_value AS REAL) AS hold_amount,       -- the amount while HELD (AUD); kept after settlement
    t.hold_amount_base_units,
    CAST(t.hold_foreign_amount_value AS REAL) AS hold_foreign_amount,
    t.hold_foreign_amount_currency,
    t.hold_foreign_amount_base_units,
    CAST(t.round_up_amount_value AS REAL) AS round_up_amount, -- moved to savings, boost included; negative as the bank sends it
    t.round_up_amount_base_units,
    t.round_up_boost_base_units,                -- the boosted part of the round-up; negative
    t.cashback_description,
    CAST(t.cashback_amount_value AS REAL) AS cashback_amount, -- reimbursed; positive
    t.cashback_amount_base_units,
    t.card_number_suffix,
    t.is_categorizable,
    t.attachment_id,
    t.deep_link_url,
    -- The flags are 0 or 1, never NULL.
    -- 1 for a transfer between the customer's own accounts (transferAccount is set)
    (t.transfer_account_id IS NOT NULL) AS is_transfer,
    -- 1 for a refund: money in, not a transfer, that reverses a purchase
    -- (transactionType 'Refund' or 'Purchase', or a card transaction)
    (t.amount_base_units > 0 AND t.transfer_account_id IS NULL
        AND (coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)) AS is_refund,
    -- 1 for interest earned (savers) or charged (home loan): transactionType
    -- 'Interest...' (the bank's 'Interest' and 'Interest Charged'), or an
    -- untyped, uncategorised 'Interest'
    (t.transfer_account_id IS NULL AND t.category_id IS NULL
        AND (coalesce(t.transaction_type, '') LIKE 'Interest%' OR (t.transaction_type IS NULL AND t.description = 'Interest'))) AS is_interest,
    -- 1 for money in that v_monthly_spending nets against its category:
    -- SETTLED, not a transfer between own accounts, not interest, not on a
    -- HOME_LOAN account, and either with a category (a friend paying back
    -- their share of a dinner, a refund by bank transfer) or a refund
    -- (is_refund). 0 while HELD: its amount may still change. Money in
    -- without a category (salary, interest) is income (v_monthly_income).
    (t.status = 'SETTLED' AND t.amount_base_units > 0 AND t.transfer_account_id IS NULL
        AND a.account_type IS NOT 'HOME_LOAN'
        AND (t.category_id IS NOT NULL
            OR ((coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)
                AND NOT (coalesce(t.transaction_type, '') LIKE 'Interest%' OR (t.transaction_type IS NULL AND t.description = 'Interest'))))) AS offsets_spending,
    -- columns of schema version 12: the household
    -- who made the transaction: on an INDIVIDUAL account that one person
    -- sees, that person; otherwise (a joint account) the person who sees
    -- the account and whose people.display_name is performing_customer;
    -- NULL when none is, or more than one
    coalesce(
        CASE WHEN a.ownership_type IS NOT 'JOINT' THEN
            (SELECT CASE WHEN count(*) = 1 THEN min(ap.person) END FROM account_people ap WHERE ap.account_id = t.account_id) END,
        (SELECT CASE WHEN count(*) = 1 THEN min(p.name) END FROM account_people ap JOIN people p ON p.name = ap.person
         WHERE ap.account_id = t.account_id AND p.display_name = t.performing_customer)) AS person,
    -- the people who can see the account (account_people), sorted, joined with ','
    (SELECT group_concat(person, ',') FROM (SELECT person FROM account_people ap WHERE ap.account_id = t.account_id ORDER BY person)) AS people,
    -- 1 for a side of a household transfer: an Up-to-Up payment between two
    -- people of the household (paired by the rule in household_views.sql)
    (t.household_transfer_id IS NOT NULL) AS household_transfer,
    t.household_transfer_id,                    -- the other side's id
    -- columns of the rules file (rules.sql)
    -- the rule that set the category the transaction has now (NULL: the bank's or the person's)
    (SELECT ra.rule FROM rule_applications ra WHERE ra.transaction_id = t.id AND ra.action = 'category'
        AND ra.value = coalesce(t.category_id, '') ORDER BY ra.id DESC LIMIT 1) AS category_rule,
    -- 1 when a rule left it out of v_monthly_spending (exclude_from_spending).
    -- By rowid against the few excluded, so that the monthly views still
    -- read the month index alone.
    (t.rowid IN (SELECT x.rowid FROM transaction_annotations xa JOIN transactions x ON x.id = xa.transaction_id
        WHERE xa.exclude_from_spending)) AS excluded_from_spending,
    (SELECT an.exclude_rule FROM transaction_annotations an WHERE an.transaction_id = t.id AND an.exclude_from_spending) AS excluded_by_rule, -- the rule that did
    (SELECT an.note FROM transaction_annotations an WHERE an.transaction_id = t.id) AS rule_note, -- a rule's note (the mirror's own; the bank's is note)
    -- the tags rules added that the bank does not keep (2Up), sorted, joined with ','
    (SELECT group_concat(value, ',') FROM (SELECT ra.value FROM rule_applications ra WHERE ra.transaction_id = t.id
        AND ra.action = 'tag' AND ra.write_back = 0 AND ra.written_back_at IS NULL AND ra.source != 'first_sync'
        ORDER BY ra.value)) AS rule_tags_local
FROM transactions t
LEFT JOIN accounts a ON a.id = t.account_id
LEFT JOIN accounts ta ON ta.id = t.transfer_account_id
LEFT JOIN categories c ON c.id = t.category_id
LEFT JOIN categories pc ON pc.id = t.parent_category_id
;
CREATE VIEW v_monthly_spending AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    coalesce(parent_category_name, 'Uncategorised') AS parent_category,
    coalesce(category_name, 'Uncategorised') AS category,
    -sum(amount_base_units) / 100.0 AS total_spent,      -- dollars: spent minus money in netted
    sum(amount_base_units < 0) AS count,                 -- purchases and payments out
    account_id,
    account_name,
    account_type,
    parent_category_id,
    category_id,
    -sum(amount_base_units) AS total_spent_base_units,   -- cents: spent minus money in netted
    -sum(min(amount_base_units, 0)) / 100.0 AS spent,    -- dollars out, before money in
    sum(max(amount_base_units, 0)) / 100.0 AS refunded,  -- dollars in netted: refunds and categorised money in
    sum(amount_base_units > 0) AS refund_count           -- transactions of money in netted
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT household_transfer
    AND NOT excluded_from_spending
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, account_id, parent_category_id, category_id
;
CREATE VIEW v_monthly_spending_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known
    coalesce(parent_category_name, 'Uncategorised') AS parent_category,
    coalesce(category_name, 'Uncategorised') AS category,
    -sum(amount_base_units) / 100.0 AS total_spent,      -- dollars: spent minus money in netted
    sum(amount_base_units < 0) AS count,                 -- purchases and payments out
    account_id,
    account_name,
    account_type,
    parent_category_id,
    category_id,
    -sum(amount_base_units) AS total_spent_base_units,   -- cents: spent minus money in netted
    -sum(min(amount_base_units, 0)) / 100.0 AS spent,    -- dollars out, before money in
    sum(max(amount_base_units, 0)) / 100.0 AS refunded,  -- dollars in netted: refunds and categorised money in
    sum(amount_base_units > 0) AS refund_count,          -- transactions of money in netted
    sum(household_transfer AND amount_base_units < 0) AS household_transfer_count, -- payments out to another person of the household
    -sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers -- dollars of them (net)
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT excluded_from_spending
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, person, account_id, parent_category_id, category_id
;
CREATE INDEX transaction_history_tx ON transaction_history (transaction_id, seq);
CREATE INDEX transactions_month_money ON transactions (
    created_month, account_id, parent_category_id, category_id, status, amount_base_units,
    transfer_account_id, transaction_type, card_purchase_method, description,
    household_transfer_id, performing_customer
);
CREATE TRIGGER transactions_search_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
END;
CREATE TRIGGER transactions_search_update AFTER UPDATE OF description, message, note, raw_text ON transactions
WHEN new.description IS NOT old.description OR new.message IS NOT old.message
    OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text
BEGIN
    DELETE FROM transactions_search WHERE rowid = old.rowid;
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
END;
CREATE TRIGGER transactions_search_delete AFTER DELETE ON transactions BEGIN
    DELETE FROM transactions_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER transactions_search_tag_insert AFTER INSERT ON transaction_tags BEGIN
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = new.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = new.transaction_id;
END;
CREATE TRIGGER transactions_search_tag_delete AFTER DELETE ON transaction_tags BEGIN
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = old.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = old.transaction_id;
END;
PRAGMA writable_schema=OFF;
COMMIT;
PRAGMA user_version = 13;
