-- A mirror at schema version 21, written by `bankmirror demo --transactions 24 --seed 4`
-- built from commit fdb2ef06b074ae0c544829984111cc6f5597d7dc; made by make-fixtures.sh, do not edit.
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
INSERT INTO accounts VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','Spending','TRANSACTIONAL','INDIVIDUAL','AUD','4751.95',475195,'2025-08-30T07:01:14+10:00','{"type":"accounts","id":"af237736-483b-4a4e-8469-cccd9fb6eb7f","attributes":{"displayName":"Spending","accountType":"TRANSACTIONAL","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"4751.95","valueInBaseUnits":475195},"createdAt":"2025-08-30T07:01:14+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f/transactions"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f"}}','2026-12-02T12:16:32.837123Z',NULL);
INSERT INTO accounts VALUES('e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b','Rainy Day 🌧','SAVER','INDIVIDUAL','AUD','14734.19',1473419,'2025-09-03T23:40:43+10:00','{"type":"accounts","id":"e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b","attributes":{"displayName":"Rainy Day 🌧","accountType":"SAVER","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"14734.19","valueInBaseUnits":1473419},"createdAt":"2025-09-03T23:40:43+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b/transactions"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/accounts/e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b"}}','2026-12-02T12:16:28.812649Z',NULL);
INSERT INTO accounts VALUES('96411555-3701-419c-8040-5c4d510b52ec','Japan Trip ✈️','SAVER','INDIVIDUAL','AUD','10748.15',1074815,'2025-09-18T01:42:14+10:00','{"type":"accounts","id":"96411555-3701-419c-8040-5c4d510b52ec","attributes":{"displayName":"Japan Trip ✈️","accountType":"SAVER","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"10748.15","valueInBaseUnits":1074815},"createdAt":"2025-09-18T01:42:14+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec/transactions"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/accounts/96411555-3701-419c-8040-5c4d510b52ec"}}','2026-12-02T12:16:28.812649Z',NULL);
INSERT INTO accounts VALUES('8764acb9-602e-4be8-a994-f92946dddf91','2Up Spending','TRANSACTIONAL','JOINT','AUD','1056.50',105650,'2025-09-29T06:09:06+10:00','{"type":"accounts","id":"8764acb9-602e-4be8-a994-f92946dddf91","attributes":{"displayName":"2Up Spending","accountType":"TRANSACTIONAL","ownershipType":"JOINT","balance":{"currencyCode":"AUD","value":"1056.50","valueInBaseUnits":105650},"createdAt":"2025-09-29T06:09:06+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/8764acb9-602e-4be8-a994-f92946dddf91/transactions"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/accounts/8764acb9-602e-4be8-a994-f92946dddf91"}}','2026-12-02T12:16:32.180381Z',NULL);
INSERT INTO accounts VALUES('bc530349-e95c-41bd-b264-556db2931833','Spending','TRANSACTIONAL','INDIVIDUAL','AUD','4116.97',411697,'2025-08-31T01:06:45+10:00','{"type":"accounts","id":"bc530349-e95c-41bd-b264-556db2931833","attributes":{"displayName":"Spending","accountType":"TRANSACTIONAL","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"4116.97","valueInBaseUnits":411697},"createdAt":"2025-08-31T01:06:45+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/bc530349-e95c-41bd-b264-556db2931833/transactions"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/accounts/bc530349-e95c-41bd-b264-556db2931833"}}','2026-12-02T12:16:32.837123Z',NULL);
INSERT INTO accounts VALUES('482961c4-3bca-4130-8d3a-5eb0aae7267d','Emergency Fund','SAVER','INDIVIDUAL','AUD','14682.46',1468246,'2025-09-05T02:36:55+10:00','{"type":"accounts","id":"482961c4-3bca-4130-8d3a-5eb0aae7267d","attributes":{"displayName":"Emergency Fund","accountType":"SAVER","ownershipType":"INDIVIDUAL","balance":{"currencyCode":"AUD","value":"14682.46","valueInBaseUnits":1468246},"createdAt":"2025-09-05T02:36:55+10:00"},"relationships":{"transactions":{"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/482961c4-3bca-4130-8d3a-5eb0aae7267d/transactions"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/accounts/482961c4-3bca-4130-8d3a-5eb0aae7267d"}}','2026-12-02T12:16:28.812649Z',NULL);
CREATE TABLE account_balances (
    account_id          TEXT NOT NULL,
    observed_at         TEXT NOT NULL,
    balance_currency    TEXT NOT NULL,
    balance_value       TEXT NOT NULL,
    balance_base_units  INTEGER NOT NULL, observed_epoch INTEGER, observed_local TEXT, observed_date TEXT, observed_month TEXT,
    PRIMARY KEY (account_id, observed_at)
) STRICT;
INSERT INTO account_balances VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','2026-12-02T12:16:28.812649Z','AUD','5017.67',501767,1796213788,'2026-12-02 23:16:28','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b','2026-12-02T12:16:28.812649Z','AUD','14734.19',1473419,1796213788,'2026-12-02 23:16:28','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('96411555-3701-419c-8040-5c4d510b52ec','2026-12-02T12:16:28.812649Z','AUD','10748.15',1074815,1796213788,'2026-12-02 23:16:28','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('8764acb9-602e-4be8-a994-f92946dddf91','2026-12-02T12:16:28.812649Z','AUD','1143.95',114395,1796213788,'2026-12-02 23:16:28','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('bc530349-e95c-41bd-b264-556db2931833','2026-12-02T12:16:28.812649Z','AUD','4176.97',417697,1796213788,'2026-12-02 23:16:28','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('482961c4-3bca-4130-8d3a-5eb0aae7267d','2026-12-02T12:16:28.812649Z','AUD','14682.46',1468246,1796213788,'2026-12-02 23:16:28','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','2026-12-02T12:16:30.488261Z','AUD','5012.47',501247,1796213790,'2026-12-02 23:16:30','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('bc530349-e95c-41bd-b264-556db2931833','2026-12-02T12:16:31.636409Z','AUD','4056.97',405697,1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('8764acb9-602e-4be8-a994-f92946dddf91','2026-12-02T12:16:32.180381Z','AUD','1056.50',105650,1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','2026-12-02T12:16:32.837123Z','AUD','4751.95',475195,1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12');
INSERT INTO account_balances VALUES('bc530349-e95c-41bd-b264-556db2931833','2026-12-02T12:16:32.837123Z','AUD','4116.97',411697,1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12');
CREATE TABLE categories (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    parent_id   TEXT,
    raw         TEXT NOT NULL
) STRICT;
INSERT INTO categories VALUES('good-life','Good Life',NULL,'{"type":"categories","id":"good-life","attributes":{"name":"Good Life"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"games-and-software"},{"type":"categories","id":"booze"},{"type":"categories","id":"events-and-gigs"},{"type":"categories","id":"hobbies"},{"type":"categories","id":"holidays-and-travel"},{"type":"categories","id":"lottery-and-gambling"},{"type":"categories","id":"pubs-and-bars"},{"type":"categories","id":"restaurants-and-cafes"},{"type":"categories","id":"takeaway"},{"type":"categories","id":"tobacco-and-vaping"},{"type":"categories","id":"tv-and-music"},{"type":"categories","id":"adult"}],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=good-life"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/good-life"}}');
INSERT INTO categories VALUES('games-and-software','Apps, Games & Software','good-life','{"type":"categories","id":"games-and-software","attributes":{"name":"Apps, Games & Software"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=games-and-software"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/games-and-software"}}');
INSERT INTO categories VALUES('booze','Booze','good-life','{"type":"categories","id":"booze","attributes":{"name":"Booze"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=booze"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/booze"}}');
INSERT INTO categories VALUES('events-and-gigs','Events & Gigs','good-life','{"type":"categories","id":"events-and-gigs","attributes":{"name":"Events & Gigs"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=events-and-gigs"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/events-and-gigs"}}');
INSERT INTO categories VALUES('hobbies','Hobbies','good-life','{"type":"categories","id":"hobbies","attributes":{"name":"Hobbies"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=hobbies"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/hobbies"}}');
INSERT INTO categories VALUES('holidays-and-travel','Holidays & Travel','good-life','{"type":"categories","id":"holidays-and-travel","attributes":{"name":"Holidays & Travel"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=holidays-and-travel"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/holidays-and-travel"}}');
INSERT INTO categories VALUES('lottery-and-gambling','Lottery & Gambling','good-life','{"type":"categories","id":"lottery-and-gambling","attributes":{"name":"Lottery & Gambling"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=lottery-and-gambling"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/lottery-and-gambling"}}');
INSERT INTO categories VALUES('pubs-and-bars','Pubs & Bars','good-life','{"type":"categories","id":"pubs-and-bars","attributes":{"name":"Pubs & Bars"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=pubs-and-bars"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/pubs-and-bars"}}');
INSERT INTO categories VALUES('restaurants-and-cafes','Restaurants & Cafes','good-life','{"type":"categories","id":"restaurants-and-cafes","attributes":{"name":"Restaurants & Cafes"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=restaurants-and-cafes"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/restaurants-and-cafes"}}');
INSERT INTO categories VALUES('takeaway','Takeaway','good-life','{"type":"categories","id":"takeaway","attributes":{"name":"Takeaway"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=takeaway"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/takeaway"}}');
INSERT INTO categories VALUES('tobacco-and-vaping','Tobacco & Vaping','good-life','{"type":"categories","id":"tobacco-and-vaping","attributes":{"name":"Tobacco & Vaping"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=tobacco-and-vaping"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/tobacco-and-vaping"}}');
INSERT INTO categories VALUES('tv-and-music','TV, Music & Streaming','good-life','{"type":"categories","id":"tv-and-music","attributes":{"name":"TV, Music & Streaming"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=tv-and-music"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/tv-and-music"}}');
INSERT INTO categories VALUES('adult','Adult','good-life','{"type":"categories","id":"adult","attributes":{"name":"Adult"},"relationships":{"parent":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=adult"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/adult"}}');
INSERT INTO categories VALUES('home','Home',NULL,'{"type":"categories","id":"home","attributes":{"name":"Home"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"groceries"},{"type":"categories","id":"homeware-and-appliances"},{"type":"categories","id":"internet"},{"type":"categories","id":"home-maintenance-and-improvements"},{"type":"categories","id":"pets"},{"type":"categories","id":"home-insurance-and-rates"},{"type":"categories","id":"rent-and-mortgage"},{"type":"categories","id":"utilities"}],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=home"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/home"}}');
INSERT INTO categories VALUES('groceries','Groceries','home','{"type":"categories","id":"groceries","attributes":{"name":"Groceries"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=groceries"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/groceries"}}');
INSERT INTO categories VALUES('homeware-and-appliances','Homeware & Appliances','home','{"type":"categories","id":"homeware-and-appliances","attributes":{"name":"Homeware & Appliances"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=homeware-and-appliances"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/homeware-and-appliances"}}');
INSERT INTO categories VALUES('internet','Internet','home','{"type":"categories","id":"internet","attributes":{"name":"Internet"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=internet"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/internet"}}');
INSERT INTO categories VALUES('home-maintenance-and-improvements','Maintenance & Improvements','home','{"type":"categories","id":"home-maintenance-and-improvements","attributes":{"name":"Maintenance & Improvements"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=home-maintenance-and-improvements"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/home-maintenance-and-improvements"}}');
INSERT INTO categories VALUES('pets','Pets','home','{"type":"categories","id":"pets","attributes":{"name":"Pets"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=pets"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/pets"}}');
INSERT INTO categories VALUES('home-insurance-and-rates','Rates & Insurance','home','{"type":"categories","id":"home-insurance-and-rates","attributes":{"name":"Rates & Insurance"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=home-insurance-and-rates"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/home-insurance-and-rates"}}');
INSERT INTO categories VALUES('rent-and-mortgage','Rent & Mortgage','home','{"type":"categories","id":"rent-and-mortgage","attributes":{"name":"Rent & Mortgage"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=rent-and-mortgage"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/rent-and-mortgage"}}');
INSERT INTO categories VALUES('utilities','Utilities','home','{"type":"categories","id":"utilities","attributes":{"name":"Utilities"},"relationships":{"parent":{"data":{"type":"categories","id":"home"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/home"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=utilities"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/utilities"}}');
INSERT INTO categories VALUES('personal','Personal',NULL,'{"type":"categories","id":"personal","attributes":{"name":"Personal"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"family"},{"type":"categories","id":"clothing-and-accessories"},{"type":"categories","id":"education-and-student-loans"},{"type":"categories","id":"fitness-and-wellbeing"},{"type":"categories","id":"gifts-and-charity"},{"type":"categories","id":"hair-and-beauty"},{"type":"categories","id":"health-and-medical"},{"type":"categories","id":"investments"},{"type":"categories","id":"life-admin"},{"type":"categories","id":"mobile-phone"},{"type":"categories","id":"news-magazines-and-books"},{"type":"categories","id":"technology"}],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=personal"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/personal"}}');
INSERT INTO categories VALUES('family','Children & Family','personal','{"type":"categories","id":"family","attributes":{"name":"Children & Family"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=family"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/family"}}');
INSERT INTO categories VALUES('clothing-and-accessories','Clothing & Accessories','personal','{"type":"categories","id":"clothing-and-accessories","attributes":{"name":"Clothing & Accessories"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=clothing-and-accessories"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/clothing-and-accessories"}}');
INSERT INTO categories VALUES('education-and-student-loans','Education & Student Loans','personal','{"type":"categories","id":"education-and-student-loans","attributes":{"name":"Education & Student Loans"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=education-and-student-loans"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/education-and-student-loans"}}');
INSERT INTO categories VALUES('fitness-and-wellbeing','Fitness & Wellbeing','personal','{"type":"categories","id":"fitness-and-wellbeing","attributes":{"name":"Fitness & Wellbeing"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=fitness-and-wellbeing"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/fitness-and-wellbeing"}}');
INSERT INTO categories VALUES('gifts-and-charity','Gifts & Charity','personal','{"type":"categories","id":"gifts-and-charity","attributes":{"name":"Gifts & Charity"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=gifts-and-charity"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/gifts-and-charity"}}');
INSERT INTO categories VALUES('hair-and-beauty','Hair & Beauty','personal','{"type":"categories","id":"hair-and-beauty","attributes":{"name":"Hair & Beauty"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=hair-and-beauty"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/hair-and-beauty"}}');
INSERT INTO categories VALUES('health-and-medical','Health & Medical','personal','{"type":"categories","id":"health-and-medical","attributes":{"name":"Health & Medical"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=health-and-medical"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/health-and-medical"}}');
INSERT INTO categories VALUES('investments','Investments','personal','{"type":"categories","id":"investments","attributes":{"name":"Investments"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=investments"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/investments"}}');
INSERT INTO categories VALUES('life-admin','Life Admin','personal','{"type":"categories","id":"life-admin","attributes":{"name":"Life Admin"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=life-admin"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/life-admin"}}');
INSERT INTO categories VALUES('mobile-phone','Mobile Phone','personal','{"type":"categories","id":"mobile-phone","attributes":{"name":"Mobile Phone"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=mobile-phone"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/mobile-phone"}}');
INSERT INTO categories VALUES('news-magazines-and-books','News, Magazines & Books','personal','{"type":"categories","id":"news-magazines-and-books","attributes":{"name":"News, Magazines & Books"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=news-magazines-and-books"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/news-magazines-and-books"}}');
INSERT INTO categories VALUES('technology','Technology','personal','{"type":"categories","id":"technology","attributes":{"name":"Technology"},"relationships":{"parent":{"data":{"type":"categories","id":"personal"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/personal"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=technology"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/technology"}}');
INSERT INTO categories VALUES('transport','Transport',NULL,'{"type":"categories","id":"transport","attributes":{"name":"Transport"},"relationships":{"parent":{"data":null},"children":{"data":[{"type":"categories","id":"car-insurance-and-maintenance"},{"type":"categories","id":"cycling"},{"type":"categories","id":"fuel"},{"type":"categories","id":"parking"},{"type":"categories","id":"public-transport"},{"type":"categories","id":"car-repayments"},{"type":"categories","id":"taxis-and-share-cars"},{"type":"categories","id":"toll-roads"}],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=transport"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/transport"}}');
INSERT INTO categories VALUES('car-insurance-and-maintenance','Car Insurance, Rego & Maintenance','transport','{"type":"categories","id":"car-insurance-and-maintenance","attributes":{"name":"Car Insurance, Rego & Maintenance"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=car-insurance-and-maintenance"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/car-insurance-and-maintenance"}}');
INSERT INTO categories VALUES('cycling','Cycling','transport','{"type":"categories","id":"cycling","attributes":{"name":"Cycling"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=cycling"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/cycling"}}');
INSERT INTO categories VALUES('fuel','Fuel','transport','{"type":"categories","id":"fuel","attributes":{"name":"Fuel"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=fuel"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/fuel"}}');
INSERT INTO categories VALUES('parking','Parking','transport','{"type":"categories","id":"parking","attributes":{"name":"Parking"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=parking"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/parking"}}');
INSERT INTO categories VALUES('public-transport','Public Transport','transport','{"type":"categories","id":"public-transport","attributes":{"name":"Public Transport"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=public-transport"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/public-transport"}}');
INSERT INTO categories VALUES('car-repayments','Repayments','transport','{"type":"categories","id":"car-repayments","attributes":{"name":"Repayments"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=car-repayments"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/car-repayments"}}');
INSERT INTO categories VALUES('taxis-and-share-cars','Taxis & Share Cars','transport','{"type":"categories","id":"taxis-and-share-cars","attributes":{"name":"Taxis & Share Cars"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=taxis-and-share-cars"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/taxis-and-share-cars"}}');
INSERT INTO categories VALUES('toll-roads','Tolls','transport','{"type":"categories","id":"toll-roads","attributes":{"name":"Tolls"},"relationships":{"parent":{"data":{"type":"categories","id":"transport"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/transport"}},"children":{"data":[],"links":{"related":"http://127.0.0.1:36913/api/v1/categories?filter%5Bparent%5D=toll-roads"}}},"links":{"self":"http://127.0.0.1:36913/api/v1/categories/toll-roads"}}');
CREATE TABLE tags (
    id  TEXT PRIMARY KEY
) STRICT;
INSERT INTO tags VALUES('Japan 🇯🇵');
INSERT INTO tags VALUES('Tax Deductible');
INSERT INTO tags VALUES('Work Expense');
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
    content_hash                    BLOB NOT NULL,
    -- when the response this version came in arrived; an older copy (a
    -- page fetched before a webhook's refetch) never overwrites a newer one
    fetched_at                      TEXT NOT NULL DEFAULT '',
    first_seen_at                   TEXT NOT NULL,
    updated_at                      TEXT NOT NULL
, created_epoch INTEGER, created_local TEXT, created_date TEXT, created_month TEXT, settled_epoch INTEGER, settled_local TEXT, settled_date TEXT, settled_month TEXT, household_transfer_id TEXT, raw_base TEXT, raw_patch TEXT, raw_full TEXT, raw TEXT GENERATED ALWAYS AS (coalesce(raw_full, json_patch(json_object(
    'type', 'transactions',
    'id', id,
    'attributes', json_object(
        'status', status,
        'rawText', raw_text,
        'description', description,
        'message', message,
        'isCategorizable', json(CASE WHEN is_categorizable THEN 'true' ELSE 'false' END),
        'holdInfo', json(CASE WHEN hold_amount_currency IS NOT NULL THEN json_object(
            'amount', json_object('currencyCode', hold_amount_currency, 'value', hold_amount_value, 'valueInBaseUnits', hold_amount_base_units),
            'foreignAmount', json(CASE WHEN hold_foreign_amount_currency IS NOT NULL THEN json_object('currencyCode', hold_foreign_amount_currency,
                'value', hold_foreign_amount_value, 'valueInBaseUnits', hold_foreign_amount_base_units) END)) END),
        'roundUp', json(CASE WHEN round_up_amount_currency IS NOT NULL THEN json_object(
            'amount', json_object('currencyCode', round_up_amount_currency, 'value', round_up_amount_value, 'valueInBaseUnits', round_up_amount_base_units),
            'boostPortion', json(CASE WHEN round_up_boost_currency IS NOT NULL THEN json_object('currencyCode', round_up_boost_currency,
                'value', round_up_boost_value, 'valueInBaseUnits', round_up_boost_base_units) END)) END),
        'cashback', json(CASE WHEN cashback_amount_currency IS NOT NULL THEN json_object(
            'description', cashback_description,
            'amount', json_object('currencyCode', cashback_amount_currency, 'value', cashback_amount_value, 'valueInBaseUnits', cashback_amount_base_units)) END),
        'amount', json_object('currencyCode', amount_currency, 'value', amount_value, 'valueInBaseUnits', amount_base_units),
        'foreignAmount', json(CASE WHEN foreign_amount_currency IS NOT NULL THEN json_object('currencyCode', foreign_amount_currency,
            'value', foreign_amount_value, 'valueInBaseUnits', foreign_amount_base_units) END),
        'cardPurchaseMethod', json(CASE WHEN card_purchase_method IS NOT NULL THEN json_object(
            'method', card_purchase_method, 'cardNumberSuffix', card_number_suffix) END),
        'settledAt', settled_at,
        'createdAt', created_at,
        'transactionType', transaction_type,
        'note', json(CASE WHEN note IS NOT NULL THEN json_object('text', note) END),
        'performingCustomer', json(CASE WHEN performing_customer IS NOT NULL THEN json_object('displayName', performing_customer) END),
        'deepLinkURL', deep_link_url),
    'relationships', json_object(
        'account', json_object('data', json_object('type', 'accounts', 'id', account_id),
            'links', json_object('related', raw_base || '/accounts/' || account_id)),
        'transferAccount', json(CASE WHEN transfer_account_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'accounts', 'id', transfer_account_id),
            'links', json_object('related', raw_base || '/accounts/' || transfer_account_id)) END),
        'category', json_object(
            'data', json(CASE WHEN category_id IS NOT NULL THEN json_object('type', 'categories', 'id', category_id) END),
            'links', json(CASE WHEN category_id IS NULL
                THEN json_object('self', raw_base || '/transactions/' || id || '/relationships/category')
                ELSE json_object('self', raw_base || '/transactions/' || id || '/relationships/category',
                    'related', raw_base || '/categories/' || category_id) END)),
        'parentCategory', json(CASE WHEN parent_category_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'categories', 'id', parent_category_id),
            'links', json_object('related', raw_base || '/categories/' || parent_category_id)) END),
        'tags', json_object('data', json_array(),
            'links', json_object('self', raw_base || '/transactions/' || id || '/relationships/tags')),
        'attachment', json(CASE WHEN attachment_id IS NULL THEN '{"data":null}' ELSE json_object(
            'data', json_object('type', 'attachments', 'id', attachment_id),
            'links', json_object('related', raw_base || '/attachments/' || attachment_id)) END)),
    'links', json_object('self', raw_base || '/transactions/' || id)), coalesce(raw_patch, '{}')))) VIRTUAL) STRICT;
INSERT INTO transactions VALUES('f15375fc-9e4e-4762-9ba6-2ba1d1178cd6','8764acb9-602e-4be8-a994-f92946dddf91','SETTLED','PETBARN COBURG','Petbarn',NULL,1,'AUD','-26.39',-2639,NULL,NULL,NULL,'AUD','-26.39',-2639,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-06-25T13:29:04+10:00','2026-06-24T13:57:18+10:00',NULL,NULL,'Alex','up://transaction/f15375fc-9e4e-4762-9ba6-2ba1d1178cd6',NULL,'pets','home',NULL,X'6445325f8c4d039abf181e379f902a087dbf4447c5662a943c0e113accf979ce','2026-12-02T12:16:29.259332Z','2026-12-02T12:16:29.265626Z','2026-12-02T12:16:29.265626Z',1782273438,'2026-06-24 13:57:18','2026-06-24','2026-06',1782358144,'2026-06-25 13:29:04','2026-06-25','2026-06',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('e1b647a3-e79c-46ca-aef2-28c606b94e5c','8764acb9-602e-4be8-a994-f92946dddf91','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-37.41',-3741,NULL,NULL,NULL,'AUD','-37.41',-3741,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-06-21T10:33:04+10:00','2026-06-19T07:20:40+10:00','Purchase',NULL,'Sam','up://transaction/e1b647a3-e79c-46ca-aef2-28c606b94e5c',NULL,'groceries','home',NULL,X'010914ae034a339b873ea6dc4f4e9607235909895344976ca8de03f3fbd0308d','2026-12-02T12:16:29.259332Z','2026-12-02T12:16:29.265626Z','2026-12-02T12:16:29.265626Z',1781817640,'2026-06-19 07:20:40','2026-06-19','2026-06',1782001984,'2026-06-21 10:33:04','2026-06-21','2026-06',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('72e14180-25c8-467d-9613-585d48cb88c8','8764acb9-602e-4be8-a994-f92946dddf91','SETTLED','TRANSPORTFORNSW OPAL SYDNEY','Transport for NSW',NULL,1,'AUD','-4.64',-464,NULL,NULL,NULL,'AUD','-4.64',-464,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-06-10T03:24:07+10:00','2026-06-08T11:53:54+10:00',NULL,NULL,'Alex','up://transaction/72e14180-25c8-467d-9613-585d48cb88c8',NULL,'public-transport','transport',NULL,X'd4d885b74d3fda342a653843e8fd1454f7fff133f27bb71c09e7263a853386db','2026-12-02T12:16:29.259332Z','2026-12-02T12:16:29.265626Z','2026-12-02T12:16:29.265626Z',1780883634,'2026-06-08 11:53:54','2026-06-08','2026-06',1781025847,'2026-06-10 03:24:07','2026-06-10','2026-06',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','8764acb9-602e-4be8-a994-f92946dddf91','SETTLED','SQ *MARKET LANE COFFEE MELBOURNE','Market Lane Coffee',NULL,1,'AUD','-7.37',-737,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'ECOMMERCE','7700','2026-01-10T22:08:10+11:00','2026-01-10T22:08:10+11:00',NULL,NULL,'Alex','up://transaction/6198a8c5-c3d2-43b5-aab7-f7de46d4cb00',NULL,'restaurants-and-cafes','good-life',NULL,X'ec6844a3a0d585d8240bd6c1f7036218aa277452d8d87c83b51afa1c5ecddb7d','2026-12-02T12:16:29.259332Z','2026-12-02T12:16:29.265626Z','2026-12-02T12:16:29.265626Z',1768043290,'2026-01-10 22:08:10','2026-01-10','2026-01',1768043290,'2026-01-10 22:08:10','2026-01-10','2026-01',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('d79bb32c-9fa4-4f87-a583-c9b9eec7097a','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','UBER *TRIP HELP.UBER.COM','Uber',NULL,1,'AUD','-48.38',-4838,NULL,NULL,NULL,'AUD','-48.38',-4838,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-11-15T09:46:54+11:00','2026-11-13T20:02:41+11:00','Purchase',NULL,'Alex','up://transaction/d79bb32c-9fa4-4f87-a583-c9b9eec7097a',NULL,'taxis-and-share-cars','transport',NULL,X'bdafe6cda8ef5d9d5f8da243520086513f354983f0c9d87321b1a722df880735','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1794560561,'2026-11-13 20:02:41','2026-11-13','2026-11',1794696414,'2026-11-15 09:46:54','2026-11-15','2026-11',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('00e0e337-23f7-4ed2-b7d6-444f9645b574','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','GRILL''D SOUTH YARRA','Grill''d',NULL,1,'AUD','-32.75',-3275,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'AUD','-0.25',-25,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CARD_ON_FILE','7700','2026-09-29T11:09:45+10:00','2026-09-29T11:09:45+10:00','Purchase',NULL,'Alex','up://transaction/00e0e337-23f7-4ed2-b7d6-444f9645b574',NULL,'restaurants-and-cafes','good-life',NULL,X'7b559c90333f5c52f2c54acbe277c4ed22d99f240fcc743dbb52bdd7c445fd57','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1790644185,'2026-09-29 11:09:45','2026-09-29','2026-09',1790644185,'2026-09-29 11:09:45','2026-09-29','2026-09',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('9bb9aa42-f991-426d-9351-07dca1756a5e','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','MYKI PTV MELBOURNE REFUND','PTV',NULL,1,'AUD','47.84',4784,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-08-07T22:13:34+10:00','2026-08-07T22:13:34+10:00','Refund',NULL,'Alex','up://transaction/9bb9aa42-f991-426d-9351-07dca1756a5e',NULL,'public-transport','transport',NULL,X'c99987cbc4c77405f2cdc9e075c95e10ec62860cd451330959ff30f0a1eb878f','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1786104814,'2026-08-07 22:13:34','2026-08-07','2026-08',1786104814,'2026-08-07 22:13:34','2026-08-07','2026-08',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('a41b44aa-4279-47ec-9633-d9f7103df2e8','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','TYPO MELBOURNE CENTRAL','Typo',NULL,1,'AUD','-59.40',-5940,NULL,NULL,NULL,'AUD','-59.40',-5940,NULL,NULL,NULL,'AUD','-0.60',-60,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-05-02T10:51:35+10:00','2026-04-29T17:03:11+10:00',NULL,NULL,'Alex','up://transaction/a41b44aa-4279-47ec-9633-d9f7103df2e8',NULL,'gifts-and-charity','personal',NULL,X'54bf5db2913cca95c682a5d4dd430eadecb96bd13c0f47de05cf399223d8f90d','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1777446191,'2026-04-29 17:03:11','2026-04-29','2026-04',1777683095,'2026-05-02 10:51:35','2026-05-02','2026-05',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('9b3fe26f-da7f-4584-9d24-070341db125d','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','WOOLWORTHS 3321 FITZROY','Woolworths',NULL,1,'AUD','-51.48',-5148,NULL,NULL,NULL,'AUD','-51.48',-5148,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-04-19T23:54:42+10:00','2026-04-19T12:23:05+10:00',NULL,NULL,'Alex','up://transaction/9b3fe26f-da7f-4584-9d24-070341db125d',NULL,'groceries','home',NULL,X'dee2e418f83ab647142475837f7b66b0a6a97b766eaf37bd1d00aa2ad957368e','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1776565385,'2026-04-19 12:23:05','2026-04-19','2026-04',1776606882,'2026-04-19 23:54:42','2026-04-19','2026-04',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('97e6ee09-ecfc-4b60-97d8-4fadb7b8d6a8','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','BOOST MOBILE RECHARGE','Boost Mobile',NULL,1,'AUD','-38.97',-3897,NULL,NULL,NULL,'AUD','-38.97',-3897,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-03-16T11:58:06+11:00','2026-03-14T18:06:25+11:00',NULL,NULL,'Alex','up://transaction/97e6ee09-ecfc-4b60-97d8-4fadb7b8d6a8',NULL,'mobile-phone','personal',NULL,X'51d46f4cdfd843687068ff4f9fad9328aa344d14dabc23c5ad8580e7552d7c73','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1773471985,'2026-03-14 18:06:25','2026-03-14','2026-03',1773622686,'2026-03-16 11:58:06','2026-03-16','2026-03',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('61bb097e-77e3-4bb0-ace7-67358de98411','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','Booking.com, UBUD INDONESIA','Booking.com',NULL,1,'AUD','-500.10',-50010,'IDR','-5201040.00',-520104000,NULL,NULL,NULL,NULL,NULL,NULL,'AUD','-4.90',-490,'AUD','-4.00',-400,NULL,NULL,NULL,NULL,'ECOMMERCE','7700','2026-02-23T08:03:14+11:00','2026-02-23T08:03:14+11:00',NULL,NULL,'Alex','up://transaction/61bb097e-77e3-4bb0-ace7-67358de98411',NULL,'holidays-and-travel','good-life',NULL,X'8dd02c07ef44a982a06894ca5340fab22f8d16035b2f1665ac8fe5d0f62d4175','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1771794194,'2026-02-23 08:03:14','2026-02-23','2026-02',1771794194,'2026-02-23 08:03:14','2026-02-23','2026-02',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('2c9b1487-1549-4154-af42-76284615e175','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','SEVEN SEEDS CARLTON REFUND','Seven Seeds',NULL,1,'AUD','35.06',3506,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-02-09T20:12:51+11:00','2026-02-09T20:12:51+11:00','Refund',NULL,'Alex','up://transaction/2c9b1487-1549-4154-af42-76284615e175',NULL,'restaurants-and-cafes','good-life',NULL,X'b9470f0667f681da0483abfbfd0e37ed8cc70f65f2f2f43df010dce06ab59df2','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1770628371,'2026-02-09 20:12:51','2026-02-09','2026-02',1770628371,'2026-02-09 20:12:51','2026-02-09','2026-02',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('c57955a8-2d0e-4dfa-b9dc-c899b14e9034','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','BUNNINGS 373000 NORTHCOTE','Bunnings Warehouse',NULL,1,'AUD','-124.11',-12411,NULL,NULL,NULL,'AUD','-124.11',-12411,NULL,NULL,NULL,'AUD','-0.89',-89,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2025-12-27T00:48:29+11:00','2025-12-24T07:25:50+11:00','Purchase',NULL,'Alex','up://transaction/c57955a8-2d0e-4dfa-b9dc-c899b14e9034',NULL,NULL,NULL,NULL,X'4e01ccc268234bf03d76b117fb1e74faa79b3af40ea164ae60198c6f7141a2d8','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1766521550,'2025-12-24 07:25:50','2025-12-24','2025-12',1766756909,'2025-12-27 00:48:29','2025-12-27','2025-12',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('bb8a1320-041f-4ced-a254-5d5ea51df405','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','SEVEN SEEDS CARLTON','Seven Seeds',NULL,1,'AUD','-14.92',-1492,NULL,NULL,NULL,'AUD','-14.92',-1492,NULL,NULL,NULL,'AUD','-1.08',-108,'AUD','-1.00',-100,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2025-10-30T20:57:17+11:00','2025-10-29T18:32:16+11:00','Purchase',NULL,'Alex','up://transaction/bb8a1320-041f-4ced-a254-5d5ea51df405',NULL,'restaurants-and-cafes','good-life',NULL,X'b36494f2dd67c5efa0abcb72be075a09decef6e9a3567ae9434af9d7fa296480','2026-12-02T12:16:29.353134Z','2026-12-02T12:16:29.353872Z','2026-12-02T12:16:29.353872Z',1761723136,'2025-10-29 18:32:16','2025-10-29','2025-10',1761818237,'2025-10-30 20:57:17','2025-10-30','2025-10',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('4a5e8ca7-2461-4ac5-9ee2-149b5a44bede','bc530349-e95c-41bd-b264-556db2931833','SETTLED','KMART 1044 BRUNSWICK','Kmart',NULL,1,'AUD','-100.66',-10066,NULL,NULL,NULL,'AUD','-100.66',-10066,NULL,NULL,NULL,'AUD','-0.34',-34,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-10-12T01:35:59+11:00','2026-10-10T11:00:31+11:00',NULL,NULL,'Sam','up://transaction/4a5e8ca7-2461-4ac5-9ee2-149b5a44bede',NULL,'homeware-and-appliances','home',NULL,X'23d6f76302a483bc8f9bb1c1bb00d1dfe4ca853e7aa8299b0ebfebca64ac5ff2','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1791590431,'2026-10-10 11:00:31','2026-10-10','2026-10',1791729359,'2026-10-12 01:35:59','2026-10-12','2026-10',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('31aa98ec-bfa3-4ceb-b880-73d75ca124ec','bc530349-e95c-41bd-b264-556db2931833','SETTLED','MYKI PTV MELBOURNE','PTV',NULL,1,'AUD','-24.53',-2453,NULL,NULL,NULL,'AUD','-24.53',-2453,NULL,NULL,NULL,'AUD','-0.47',-47,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-08-18T09:51:11+10:00','2026-08-17T19:59:02+10:00',NULL,NULL,'Sam','up://transaction/31aa98ec-bfa3-4ceb-b880-73d75ca124ec',NULL,'public-transport','transport',NULL,X'24ca54ef544e0300815d5fda111fba0430172948d1f8161f327a4da11ea3dc6d','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1786960742,'2026-08-17 19:59:02','2026-08-17','2026-08',1787010671,'2026-08-18 09:51:11','2026-08-18','2026-08',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('770f2a48-a922-4532-a976-65e2dc720e74','bc530349-e95c-41bd-b264-556db2931833','SETTLED','HARRIS FARM MKTS BONDI','Harris Farm Markets',NULL,1,'AUD','-18.56',-1856,NULL,NULL,NULL,'AUD','-18.56',-1856,NULL,NULL,NULL,'AUD','-2.44',-244,'AUD','-2.00',-200,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-08-14T11:13:09+10:00','2026-08-13T21:56:40+10:00',NULL,NULL,'Sam','up://transaction/770f2a48-a922-4532-a976-65e2dc720e74',NULL,'groceries','home',NULL,X'90f9a3e3b94cc53e81c94246cdd671ae787ccc83f9425d8307f105f5dca22c57','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1786622200,'2026-08-13 21:56:40','2026-08-13','2026-08',1786669989,'2026-08-14 11:13:09','2026-08-14','2026-08',NULL,'http://127.0.0.1:36913/api/v1','{"relationships":{"tags":{"data":[{"type":"tags","id":"Japan 🇯🇵"},{"type":"tags","id":"Tax Deductible"},{"type":"tags","id":"Work Expense"}]}}}',NULL);
INSERT INTO transactions VALUES('58ad4b5c-e8e0-4bdd-ae85-7abb5c6cff41','bc530349-e95c-41bd-b264-556db2931833','SETTLED','CHIN CHIN RESTAURANT MELBOURNE','Chin Chin',NULL,1,'AUD','-137.33',-13733,NULL,NULL,NULL,'AUD','-137.33',-13733,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-07-11T00:28:07+10:00','2026-07-08T08:46:22+10:00',NULL,NULL,'Sam','up://transaction/58ad4b5c-e8e0-4bdd-ae85-7abb5c6cff41',NULL,'restaurants-and-cafes','good-life',NULL,X'3515e21612e6dcc0ef291a904ddb395b06603dd3aa03e0a3b59ce50ed14207fc','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1783464382,'2026-07-08 08:46:22','2026-07-08','2026-07',1783693687,'2026-07-11 00:28:07','2026-07-11','2026-07',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('60751f18-69a0-4730-bd8d-9f853528101a','bc530349-e95c-41bd-b264-556db2931833','SETTLED','WOOLWORTHS 3321 FITZROY','Woolworths',NULL,1,'AUD','-142.35',-14235,NULL,NULL,NULL,'AUD','-142.35',-14235,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'ECOMMERCE','1852','2026-06-30T20:42:47+10:00','2026-06-29T09:16:32+10:00','Purchase',NULL,'Sam','up://transaction/60751f18-69a0-4730-bd8d-9f853528101a',NULL,'groceries','home',NULL,X'e865c5ef83ceaa364f9c8e12783acdb94184e65c7e1501dbc0ee87dd198a3799','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1782688592,'2026-06-29 09:16:32','2026-06-29','2026-06',1782816167,'2026-06-30 20:42:47','2026-06-30','2026-06',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('bbd83de6-7941-4143-bc3b-63ee7540bab8','bc530349-e95c-41bd-b264-556db2931833','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-51.61',-5161,NULL,NULL,NULL,'AUD','-51.61',-5161,NULL,NULL,NULL,'AUD','-0.39',-39,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-06-01T04:52:04+10:00','2026-05-30T17:56:44+10:00','Purchase',NULL,'Sam','up://transaction/bbd83de6-7941-4143-bc3b-63ee7540bab8',NULL,'groceries','home',NULL,X'9891a655b339acc50998633a509a011ff95580f13c0d258650ad34a34fc9d963','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1780127804,'2026-05-30 17:56:44','2026-05-30','2026-05',1780253524,'2026-06-01 04:52:04','2026-06-01','2026-06',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('0bed5e7f-add5-4304-9f53-b0d5b52b5240','bc530349-e95c-41bd-b264-556db2931833','SETTLED','THE ICONIC SYDNEY','The Iconic',NULL,1,'AUD','-247.29',-24729,NULL,NULL,NULL,'AUD','-247.29',-24729,NULL,NULL,NULL,'AUD','-0.71',-71,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-04-10T03:25:25+10:00','2026-04-08T09:31:13+10:00',NULL,NULL,'Sam','up://transaction/0bed5e7f-add5-4304-9f53-b0d5b52b5240',NULL,'clothing-and-accessories','personal',NULL,X'adfa6a460c2ecae540e15240308319f8ee76b3918be35da697f74a88f16a095c','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1775604673,'2026-04-08 09:31:13','2026-04-08','2026-04',1775755525,'2026-04-10 03:25:25','2026-04-10','2026-04',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('cdd021c0-4e01-448b-8700-0fb8c431a00b','bc530349-e95c-41bd-b264-556db2931833','SETTLED','STEAMGAMES.COM 4259522985','Steam',NULL,1,'AUD','-30.20',-3020,NULL,NULL,NULL,'AUD','-30.20',-3020,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'OCR',NULL,'2026-04-04T13:12:25+11:00','2026-04-03T15:07:46+11:00',NULL,NULL,'Sam','up://transaction/cdd021c0-4e01-448b-8700-0fb8c431a00b',NULL,'games-and-software','good-life',NULL,X'b8a297a07d5ad8d2696f12211ad39976715198e83923c5e40305488077191673','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1775189266,'2026-04-03 15:07:46','2026-04-03','2026-04',1775268745,'2026-04-04 13:12:25','2026-04-04','2026-04',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('6fc054f2-f9b2-44aa-9571-03d19edc9670','bc530349-e95c-41bd-b264-556db2931833','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-33.25',-3325,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2025-12-12T21:10:43+11:00','2025-12-12T21:10:43+11:00',NULL,NULL,'Sam','up://transaction/6fc054f2-f9b2-44aa-9571-03d19edc9670',NULL,'groceries','home',NULL,X'4e2dc4fb6d293fa225d89844e5bb1d117161e327e27c226cd6e0b3896a39e256','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1765534243,'2025-12-12 21:10:43','2025-12-12','2025-12',1765534243,'2025-12-12 21:10:43','2025-12-12','2025-12',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('48f7afd4-c2f1-4f43-8222-b88ae7518e28','bc530349-e95c-41bd-b264-556db2931833','SETTLED','COLES 0785 RICHMOND','Coles',NULL,1,'AUD','-55.84',-5584,NULL,NULL,NULL,'AUD','-55.84',-5584,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'BAR_CODE',NULL,'2025-11-17T03:16:57+11:00','2025-11-15T10:39:29+11:00',NULL,NULL,'Sam','up://transaction/48f7afd4-c2f1-4f43-8222-b88ae7518e28',NULL,'groceries','home',NULL,X'20aab585c6d943d1ee23465f724ae14043bdbf56f711bf117b970c3579405c14','2026-12-02T12:16:29.453599Z','2026-12-02T12:16:29.454673Z','2026-12-02T12:16:29.454673Z',1763163569,'2025-11-15 10:39:29','2025-11-15','2025-11',1763309817,'2025-11-17 03:16:57','2025-11-17','2025-11',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('e59685c9-4075-492d-ba0e-e186d1eb0de8','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED','Seven Seeds','Seven Seeds',NULL,1,'AUD','-5.72',-572,NULL,NULL,NULL,'AUD','-5.20',-520,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','7700','2026-12-02T23:16:31+11:00','2026-12-02T23:16:30+11:00',NULL,NULL,'Alex','up://transaction/e59685c9-4075-492d-ba0e-e186d1eb0de8',NULL,'restaurants-and-cafes','good-life',NULL,X'5c1e5f605b7b714c884e63e0a784905978a63de35a3679181e4d950894fb2c6e','2026-12-02T12:16:31.746639Z','2026-12-02T12:16:30.461021Z','2026-12-02T12:16:31.756110Z',1796213790,'2026-12-02 23:16:30','2026-12-02','2026-12',1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('a570ba01-cf9e-49a0-b6eb-0965a4716510','bc530349-e95c-41bd-b264-556db2931833','SETTLED','Ticketek','Ticketek',NULL,1,'AUD','-120.00',-12000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-12-02T23:16:30+11:00','2026-12-02T23:16:30+11:00',NULL,NULL,'Sam','up://transaction/a570ba01-cf9e-49a0-b6eb-0965a4716510',NULL,'events-and-gigs','good-life',NULL,X'1a8db3babdb4653bd2ec8cf3231dfe946ebd5a5351e34b992127a729fc117aef','2026-12-02T12:16:30.980668Z','2026-12-02T12:16:31.000789Z','2026-12-02T12:16:31.000789Z',1796213790,'2026-12-02 23:16:30','2026-12-02','2026-12',1796213790,'2026-12-02 23:16:30','2026-12-02','2026-12',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('3ed30a97-e519-4de2-9a54-5d879d882179','8764acb9-602e-4be8-a994-f92946dddf91','SETTLED','Woolworths','Woolworths',NULL,1,'AUD','-87.45',-8745,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'CONTACTLESS','1852','2026-12-02T23:16:31+11:00','2026-12-02T23:16:31+11:00',NULL,NULL,'Sam','up://transaction/3ed30a97-e519-4de2-9a54-5d879d882179',NULL,'groceries','home',NULL,X'58d5890648229d3e7aab75592096c1ca99e7eee36ae2ac7f36dba59f3b153cdb','2026-12-02T12:16:31.778911Z','2026-12-02T12:16:31.959427Z','2026-12-02T12:16:31.959427Z',1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12',1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12',NULL,'http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('77f68917-f65d-45c6-9cfe-5d97d215f502','af237736-483b-4a4e-8469-cccd9fb6eb7f','SETTLED',NULL,'Sam Smith','Half the concert tickets 🎸',1,'AUD','-60.00',-6000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-12-02T23:16:32+11:00','2026-12-02T23:16:32+11:00','Pay Anyone',NULL,'Alex','up://transaction/77f68917-f65d-45c6-9cfe-5d97d215f502',NULL,NULL,NULL,NULL,X'e762812c73f0cba2c50af41a0484f468dfaef5ba76795d745cb4fc129b29365d','2026-12-02T12:16:32.184513Z','2026-12-02T12:16:32.208828Z','2026-12-02T12:16:32.208828Z',1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12',1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12','874d43eb-ee2c-435b-ae73-60671314c67c','http://127.0.0.1:36913/api/v1',NULL,NULL);
INSERT INTO transactions VALUES('874d43eb-ee2c-435b-ae73-60671314c67c','bc530349-e95c-41bd-b264-556db2931833','SETTLED',NULL,'Alex Jones','Half the concert tickets 🎸',1,'AUD','60.00',6000,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL,'2026-12-02T23:16:32+11:00','2026-12-02T23:16:32+11:00','Osko Payment Received',NULL,NULL,'up://transaction/874d43eb-ee2c-435b-ae73-60671314c67c',NULL,NULL,NULL,NULL,X'757dc56f352e1f861cfc94d7d7587a995703723c3a95f89ea93d1da032fb2ce1','2026-12-02T12:16:32.364164Z','2026-12-02T12:16:32.408108Z','2026-12-02T12:16:32.408108Z',1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12',1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12','77f68917-f65d-45c6-9cfe-5d97d215f502','http://127.0.0.1:36913/api/v1',NULL,NULL);
CREATE TABLE transaction_tags (
    transaction_id  TEXT NOT NULL REFERENCES transactions (id) ON DELETE CASCADE,
    tag_id          TEXT NOT NULL,
    PRIMARY KEY (transaction_id, tag_id)
) STRICT, WITHOUT ROWID;
INSERT INTO transaction_tags VALUES('770f2a48-a922-4532-a976-65e2dc720e74','Japan 🇯🇵');
INSERT INTO transaction_tags VALUES('770f2a48-a922-4532-a976-65e2dc720e74','Tax Deductible');
INSERT INTO transaction_tags VALUES('770f2a48-a922-4532-a976-65e2dc720e74','Work Expense');
CREATE TABLE transaction_tombstones (
    id          TEXT PRIMARY KEY,
    deleted_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;
INSERT INTO transaction_tombstones VALUES('571d348e-ae98-41fe-8a48-8e5bc53017cc','2026-12-02T12:16:33.124545Z');
CREATE TABLE transaction_history (
    seq             INTEGER PRIMARY KEY, -- rowids only grow: history rows are never deleted
    transaction_id  TEXT NOT NULL,
    change          TEXT NOT NULL CHECK (change IN ('created', 'updated', 'settled', 'deleted')),
    observed_at     TEXT NOT NULL,
    raw             TEXT
, observed_epoch INTEGER, observed_local TEXT, observed_date TEXT, observed_month TEXT) STRICT;
INSERT INTO transaction_history VALUES(1,'f15375fc-9e4e-4762-9ba6-2ba1d1178cd6','created','2026-12-02T12:16:29.265626Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(2,'e1b647a3-e79c-46ca-aef2-28c606b94e5c','created','2026-12-02T12:16:29.265626Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(3,'72e14180-25c8-467d-9613-585d48cb88c8','created','2026-12-02T12:16:29.265626Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(4,'6198a8c5-c3d2-43b5-aab7-f7de46d4cb00','created','2026-12-02T12:16:29.265626Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(5,'d79bb32c-9fa4-4f87-a583-c9b9eec7097a','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(6,'00e0e337-23f7-4ed2-b7d6-444f9645b574','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(7,'9bb9aa42-f991-426d-9351-07dca1756a5e','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(8,'a41b44aa-4279-47ec-9633-d9f7103df2e8','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(9,'9b3fe26f-da7f-4584-9d24-070341db125d','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(10,'97e6ee09-ecfc-4b60-97d8-4fadb7b8d6a8','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(11,'61bb097e-77e3-4bb0-ace7-67358de98411','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(12,'2c9b1487-1549-4154-af42-76284615e175','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(13,'c57955a8-2d0e-4dfa-b9dc-c899b14e9034','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(14,'bb8a1320-041f-4ced-a254-5d5ea51df405','created','2026-12-02T12:16:29.353872Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(15,'4a5e8ca7-2461-4ac5-9ee2-149b5a44bede','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(16,'31aa98ec-bfa3-4ceb-b880-73d75ca124ec','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(17,'770f2a48-a922-4532-a976-65e2dc720e74','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(18,'58ad4b5c-e8e0-4bdd-ae85-7abb5c6cff41','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(19,'60751f18-69a0-4730-bd8d-9f853528101a','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(20,'bbd83de6-7941-4143-bc3b-63ee7540bab8','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(21,'0bed5e7f-add5-4304-9f53-b0d5b52b5240','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(22,'cdd021c0-4e01-448b-8700-0fb8c431a00b','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(23,'6fc054f2-f9b2-44aa-9571-03d19edc9670','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(24,'48f7afd4-c2f1-4f43-8222-b88ae7518e28','created','2026-12-02T12:16:29.454673Z',NULL,1796213789,'2026-12-02 23:16:29','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(25,'e59685c9-4075-492d-ba0e-e186d1eb0de8','created','2026-12-02T12:16:30.461021Z',NULL,1796213790,'2026-12-02 23:16:30','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(26,'a570ba01-cf9e-49a0-b6eb-0965a4716510','created','2026-12-02T12:16:31.000789Z',NULL,1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(27,'e59685c9-4075-492d-ba0e-e186d1eb0de8','settled','2026-12-02T12:16:31.756110Z','{"type":"transactions","id":"e59685c9-4075-492d-ba0e-e186d1eb0de8","attributes":{"status":"HELD","rawText":"Seven Seeds","description":"Seven Seeds","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-5.20","valueInBaseUnits":-520},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-5.20","valueInBaseUnits":-520},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"7700"},"settledAt":null,"createdAt":"2026-12-02T23:16:30+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Alex"},"deepLinkURL":"up://transaction/e59685c9-4075-492d-ba0e-e186d1eb0de8"},"relationships":{"account":{"data":{"type":"accounts","id":"af237736-483b-4a4e-8469-cccd9fb6eb7f"},"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f"}},"transferAccount":{"data":null},"category":{"data":{"type":"categories","id":"restaurants-and-cafes"},"links":{"self":"http://127.0.0.1:36913/api/v1/transactions/e59685c9-4075-492d-ba0e-e186d1eb0de8/relationships/category","related":"http://127.0.0.1:36913/api/v1/categories/restaurants-and-cafes"}},"parentCategory":{"data":{"type":"categories","id":"good-life"},"links":{"related":"http://127.0.0.1:36913/api/v1/categories/good-life"}},"tags":{"data":[],"links":{"self":"http://127.0.0.1:36913/api/v1/transactions/e59685c9-4075-492d-ba0e-e186d1eb0de8/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:36913/api/v1/transactions/e59685c9-4075-492d-ba0e-e186d1eb0de8"}}',1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(28,'3ed30a97-e519-4de2-9a54-5d879d882179','created','2026-12-02T12:16:31.959427Z',NULL,1796213791,'2026-12-02 23:16:31','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(29,'77f68917-f65d-45c6-9cfe-5d97d215f502','created','2026-12-02T12:16:32.208828Z',NULL,1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(30,'874d43eb-ee2c-435b-ae73-60671314c67c','created','2026-12-02T12:16:32.408108Z',NULL,1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(31,'571d348e-ae98-41fe-8a48-8e5bc53017cc','created','2026-12-02T12:16:32.873338Z',NULL,1796213792,'2026-12-02 23:16:32','2026-12-02','2026-12');
INSERT INTO transaction_history VALUES(32,'571d348e-ae98-41fe-8a48-8e5bc53017cc','deleted','2026-12-02T12:16:33.124545Z','{"type":"transactions","id":"571d348e-ae98-41fe-8a48-8e5bc53017cc","attributes":{"status":"HELD","rawText":"Hotel deposit","description":"Hotel deposit","message":null,"isCategorizable":true,"holdInfo":{"amount":{"currencyCode":"AUD","value":"-200.00","valueInBaseUnits":-20000},"foreignAmount":null},"roundUp":null,"cashback":null,"amount":{"currencyCode":"AUD","value":"-200.00","valueInBaseUnits":-20000},"foreignAmount":null,"cardPurchaseMethod":{"method":"CONTACTLESS","cardNumberSuffix":"7700"},"settledAt":null,"createdAt":"2026-12-02T23:16:32+11:00","transactionType":null,"note":null,"performingCustomer":{"displayName":"Alex"},"deepLinkURL":"up://transaction/571d348e-ae98-41fe-8a48-8e5bc53017cc"},"relationships":{"account":{"data":{"type":"accounts","id":"af237736-483b-4a4e-8469-cccd9fb6eb7f"},"links":{"related":"http://127.0.0.1:36913/api/v1/accounts/af237736-483b-4a4e-8469-cccd9fb6eb7f"}},"transferAccount":{"data":null},"category":{"data":null,"links":{"self":"http://127.0.0.1:36913/api/v1/transactions/571d348e-ae98-41fe-8a48-8e5bc53017cc/relationships/category"}},"parentCategory":{"data":null},"tags":{"data":[],"links":{"self":"http://127.0.0.1:36913/api/v1/transactions/571d348e-ae98-41fe-8a48-8e5bc53017cc/relationships/tags"}},"attachment":{"data":null}},"links":{"self":"http://127.0.0.1:36913/api/v1/transactions/571d348e-ae98-41fe-8a48-8e5bc53017cc"}}',1796213793,'2026-12-02 23:16:33','2026-12-02','2026-12');
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
INSERT INTO sync_runs VALUES(1,'full','2026-12-02T12:16:28.776982Z','2026-12-02T12:16:30.374944Z','ok',17,24,0,NULL);
CREATE TABLE sync_state (
    name             TEXT PRIMARY KEY,
    started_at       TEXT NOT NULL,
    next_page_url    TEXT,
    pages            INTEGER NOT NULL DEFAULT 0,
    owner            TEXT, -- token of the sync writing this listing; another one taking over makes the first stop
    last_success_at  TEXT,
    error_count      INTEGER NOT NULL DEFAULT 0
, start_seq INTEGER, start_rowid INTEGER) STRICT;
INSERT INTO sync_state VALUES('transactions','2026-12-02T12:16:28.995424Z',NULL,6,'5DV6BEBFD33WWJUIQRAROOTLSH','2026-12-02T12:16:30.176169Z',0,0,0);
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
INSERT INTO webhook_events VALUES('cef6d69d-b9fa-44d6-9217-10251867f677','TRANSACTION_CREATED','06ea46f2-fa0a-48a2-93e5-576fcc1e5409','e59685c9-4075-492d-ba0e-e186d1eb0de8','2026-12-02T23:16:30+11:00','2026-12-02T12:16:30.457645Z','2026-12-02T12:16:30.461021Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"cef6d69d-b9fa-44d6-9217-10251867f677","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-12-02T23:16:30+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"06ea46f2-fa0a-48a2-93e5-576fcc1e5409"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/06ea46f2-fa0a-48a2-93e5-576fcc1e5409"}},"transaction":{"data":{"type":"transactions","id":"e59685c9-4075-492d-ba0e-e186d1eb0de8"},"links":{"related":"http://127.0.0.1:36913/api/v1/transactions/e59685c9-4075-492d-ba0e-e186d1eb0de8"}}}}}');
INSERT INTO webhook_events VALUES('46a91e11-d1c9-4577-95f9-1bc18583f407','TRANSACTION_CREATED','661b21d6-2cdd-438d-b0ec-480fee5c9d62','a570ba01-cf9e-49a0-b6eb-0965a4716510','2026-12-02T23:16:30+11:00','2026-12-02T12:16:30.922950Z','2026-12-02T12:16:31.000789Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"46a91e11-d1c9-4577-95f9-1bc18583f407","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-12-02T23:16:30+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"661b21d6-2cdd-438d-b0ec-480fee5c9d62"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/661b21d6-2cdd-438d-b0ec-480fee5c9d62"}},"transaction":{"data":{"type":"transactions","id":"a570ba01-cf9e-49a0-b6eb-0965a4716510"},"links":{"related":"http://127.0.0.1:36913/api/v1/transactions/a570ba01-cf9e-49a0-b6eb-0965a4716510"}}}}}');
INSERT INTO webhook_events VALUES('380cad11-53b7-4092-b5d3-0f885477b8a6','TRANSACTION_SETTLED','06ea46f2-fa0a-48a2-93e5-576fcc1e5409','e59685c9-4075-492d-ba0e-e186d1eb0de8','2026-12-02T23:16:31+11:00','2026-12-02T12:16:31.732432Z','2026-12-02T12:16:31.756110Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"380cad11-53b7-4092-b5d3-0f885477b8a6","attributes":{"eventType":"TRANSACTION_SETTLED","createdAt":"2026-12-02T23:16:31+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"06ea46f2-fa0a-48a2-93e5-576fcc1e5409"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/06ea46f2-fa0a-48a2-93e5-576fcc1e5409"}},"transaction":{"data":{"type":"transactions","id":"e59685c9-4075-492d-ba0e-e186d1eb0de8"},"links":{"related":"http://127.0.0.1:36913/api/v1/transactions/e59685c9-4075-492d-ba0e-e186d1eb0de8"}}}}}');
INSERT INTO webhook_events VALUES('8324f1b2-e6de-47b5-89b3-ad4f577b2033','TRANSACTION_CREATED','06ea46f2-fa0a-48a2-93e5-576fcc1e5409','77f68917-f65d-45c6-9cfe-5d97d215f502','2026-12-02T23:16:32+11:00','2026-12-02T12:16:32.155999Z','2026-12-02T12:16:32.208828Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"8324f1b2-e6de-47b5-89b3-ad4f577b2033","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-12-02T23:16:32+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"06ea46f2-fa0a-48a2-93e5-576fcc1e5409"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/06ea46f2-fa0a-48a2-93e5-576fcc1e5409"}},"transaction":{"data":{"type":"transactions","id":"77f68917-f65d-45c6-9cfe-5d97d215f502"},"links":{"related":"http://127.0.0.1:36913/api/v1/transactions/77f68917-f65d-45c6-9cfe-5d97d215f502"}}}}}');
INSERT INTO webhook_events VALUES('f77f9591-e23e-42be-9cf7-f51eba505b86','TRANSACTION_CREATED','661b21d6-2cdd-438d-b0ec-480fee5c9d62','874d43eb-ee2c-435b-ae73-60671314c67c','2026-12-02T23:16:32+11:00','2026-12-02T12:16:32.185628Z','2026-12-02T12:16:32.408108Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"f77f9591-e23e-42be-9cf7-f51eba505b86","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-12-02T23:16:32+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"661b21d6-2cdd-438d-b0ec-480fee5c9d62"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/661b21d6-2cdd-438d-b0ec-480fee5c9d62"}},"transaction":{"data":{"type":"transactions","id":"874d43eb-ee2c-435b-ae73-60671314c67c"},"links":{"related":"http://127.0.0.1:36913/api/v1/transactions/874d43eb-ee2c-435b-ae73-60671314c67c"}}}}}');
INSERT INTO webhook_events VALUES('3798c919-413f-494d-a754-cac4463dadb0','TRANSACTION_CREATED','06ea46f2-fa0a-48a2-93e5-576fcc1e5409','571d348e-ae98-41fe-8a48-8e5bc53017cc','2026-12-02T23:16:32+11:00','2026-12-02T12:16:32.562784Z','2026-12-02T12:16:32.873338Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"3798c919-413f-494d-a754-cac4463dadb0","attributes":{"eventType":"TRANSACTION_CREATED","createdAt":"2026-12-02T23:16:32+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"06ea46f2-fa0a-48a2-93e5-576fcc1e5409"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/06ea46f2-fa0a-48a2-93e5-576fcc1e5409"}},"transaction":{"data":{"type":"transactions","id":"571d348e-ae98-41fe-8a48-8e5bc53017cc"},"links":{"related":"http://127.0.0.1:36913/api/v1/transactions/571d348e-ae98-41fe-8a48-8e5bc53017cc"}}}}}');
INSERT INTO webhook_events VALUES('dba929ca-3e0b-42a5-b964-ef7c9096f07b','TRANSACTION_DELETED','06ea46f2-fa0a-48a2-93e5-576fcc1e5409','571d348e-ae98-41fe-8a48-8e5bc53017cc','2026-12-02T23:16:32+11:00','2026-12-02T12:16:33.080834Z','2026-12-02T12:16:33.124545Z',0,NULL,'','webhook','{"data":{"type":"webhook-events","id":"dba929ca-3e0b-42a5-b964-ef7c9096f07b","attributes":{"eventType":"TRANSACTION_DELETED","createdAt":"2026-12-02T23:16:32+11:00"},"relationships":{"webhook":{"data":{"type":"webhooks","id":"06ea46f2-fa0a-48a2-93e5-576fcc1e5409"},"links":{"related":"http://127.0.0.1:36913/api/v1/webhooks/06ea46f2-fa0a-48a2-93e5-576fcc1e5409"}},"transaction":{"data":{"type":"transactions","id":"571d348e-ae98-41fe-8a48-8e5bc53017cc"}}}}}');
CREATE TABLE webhooks (
    id           TEXT PRIMARY KEY,
    url          TEXT NOT NULL,
    description  TEXT,
    secret_key   TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    deleted_at   TEXT
, person TEXT) STRICT;
INSERT INTO webhooks VALUES('06ea46f2-fa0a-48a2-93e5-576fcc1e5409','http://127.0.0.1:33871/webhook','bankmirror demo','','2026-12-02T23:16:30+11:00',NULL,'alex');
INSERT INTO webhooks VALUES('661b21d6-2cdd-438d-b0ec-480fee5c9d62','http://127.0.0.1:33871/webhook','bankmirror demo','','2026-12-02T23:16:30+11:00',NULL,'sam');
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
INSERT INTO daemon_state VALUES('demo_mirror','{"note":"written by bankmirror demo against its simulated bank"}','2026-12-02T12:16:26.684272Z');
INSERT INTO daemon_state VALUES('schedule_running','false','2026-12-02T12:16:33.342758Z');
INSERT INTO daemon_state VALUES('rules_cursor','32','2026-12-02T12:16:33.141179Z');
INSERT INTO daemon_state VALUES('daemon','{"pid":17749,"budget":{"known":true,"remaining":981,"reserve":50,"observed_at":"2026-12-02T12:16:33.123754168Z","waiting":false,"rate_limited":0},"worker":{"Paused":false,"PausedUntil":"0001-01-01T00:00:00Z","PauseCause":"","Unauthorized":false},"token":{"rejected":false,"replaced":0},"people":[{"name":"alex","token":{"rejected":false,"replaced":0},"budget":{"known":true,"remaining":981,"reserve":50,"observed_at":"2026-12-02T12:16:33.123754168Z","waiting":false,"rate_limited":0}},{"name":"sam","token":{"rejected":false,"replaced":0},"budget":{"known":true,"remaining":983,"reserve":50,"observed_at":"2026-12-02T12:16:32.675767564Z","waiting":false,"rate_limited":0}}],"stopped":true}','2026-12-02T12:16:33.575845Z');
INSERT INTO daemon_state VALUES('probe','{}','2026-12-02T12:16:28.788092Z');
INSERT INTO daemon_state VALUES('listing_plan:transactions','{"accounts":["482961c4-3bca-4130-8d3a-5eb0aae7267d","8764acb9-602e-4be8-a994-f92946dddf91","96411555-3701-419c-8040-5c4d510b52ec","af237736-483b-4a4e-8469-cccd9fb6eb7f","bc530349-e95c-41bd-b264-556db2931833","e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b"]}','2026-12-02T12:16:29.121628Z');
INSERT INTO daemon_state VALUES('household_listed_accounts','["482961c4-3bca-4130-8d3a-5eb0aae7267d","8764acb9-602e-4be8-a994-f92946dddf91","96411555-3701-419c-8040-5c4d510b52ec","af237736-483b-4a4e-8469-cccd9fb6eb7f","bc530349-e95c-41bd-b264-556db2931833","e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b"]','2026-12-02T12:16:30.355221Z');
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
INSERT INTO transactions_search_data VALUES(1,X'1d2e08005505');
INSERT INTO transactions_search_data VALUES(10,X'000000000108080008010101020101030101040101050101060101070101080101');
INSERT INTO transactions_search_data VALUES(137438953473,X'0000039705303037383502060103031206010303030601030301060103030104313034340f0601030301043333323109060103030a06010303020537333030300d06010303010a3432353935323239383516060103040105626f6e6469110601030503056f6b696e670b0802010302040273740a0802010302020872756e737769636b0f060103040207756e6e696e67730d080201030201076361726c746f6e0c0601030402060103040206656e7472616c0806010304020368696e120c02030103020302056f62757267010601030303046666656504080401030503036c657302080201030212080201030203080201030201080201030203016d05060103060608030103030b060103030101640608030103030209656475637469626c6511060104040107657870656e7365110601040601046661726d110803010303020669747a726f7909060103040a0601030402026f7203020301056772696c6c06080201030201066861727269731108020103020203656c700506010304010669636f6e696315080301030302086e646f6e657369610b0601030501056a6170616e110601040201056b6d6172740f080201030201046c616e6504080301030401066d61726b65740408020103030701731102040208656c626f75726e650406010306030601030401060103030806010304020601030502036b7473110601030402056f62696c650a08030103030203796b690706010302090601030201096e6f727468636f74650d060103040202737703020401046f70616c030601030301077065746261726e01080201030202027476070802010303090802010303010872656368617267650a06010304030466756e640706010305050601030503087374617572616e74120601030402076963686d6f6e640206010304120601030403060103040106010304010573656564730c0803010303020803010303030376656e0c080201030202080201030202046f7574680606010304020171040601030202047465616d160202060567616d65731606010302020579646e6579030601030412060103040103746178110601040302026865150802010302020872616e73706f72740302020a06666f726e73770306010302030269700506010303020379706f080802010302010475626572050a0201030205030275640b06010304010977617265686f7573650d020302096f6f6c776f727468730908020103020a08020103020302726b1106010405010579617272610606010305041a0b100c110c0d0a0f0f130d0d0c0c1d1309100e0c12070d0e0a0e0f0c0d0c0e06230a0d0f10070b0f100f100f1d13110b08090c110a0a0d0d090b0d090e1709');
INSERT INTO transactions_search_data VALUES(274877906945,X'0000001c06307365656473190803010303030376656e190802010302040d');
INSERT INTO transactions_search_data VALUES(412316860417,X'0000001409307469636b6574656b1a080201030204');
INSERT INTO transactions_search_data VALUES(549755813889,X'000000160b30776f6f6c776f727468731b080201030204');
INSERT INTO transactions_search_data VALUES(687194767361,X'000000450830636f6e636572741c06010104010468616c661c06010102010373616d1c020202046d6974681c020301037468651c06010103020669636b6574731c06010105040e0b08090a');
INSERT INTO transactions_search_data VALUES(824633720833,X'000000470530616c65781d02020107636f6e636572741d06010104010468616c661d0601010201056a6f6e65731d020301037468651d06010103020669636b6574731d0601010504090e0b0a0a');
INSERT INTO transactions_search_data VALUES(962072674305,X'0000002008306465706f7369741e08030103030105686f74656c1e0802010302040f');
INSERT INTO transactions_search_data VALUES(1099511627777,X'0000001808306465706f7369741e010105686f74656c1e01040b');
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
INSERT INTO transactions_search_content VALUES(1,'Petbarn',NULL,NULL,'PETBARN COBURG',NULL);
INSERT INTO transactions_search_content VALUES(2,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(3,'Transport for NSW',NULL,NULL,'TRANSPORTFORNSW OPAL SYDNEY',NULL);
INSERT INTO transactions_search_content VALUES(4,'Market Lane Coffee',NULL,NULL,'SQ *MARKET LANE COFFEE MELBOURNE',NULL);
INSERT INTO transactions_search_content VALUES(5,'Uber',NULL,NULL,'UBER *TRIP HELP.UBER.COM',NULL);
INSERT INTO transactions_search_content VALUES(6,'Grill''d',NULL,NULL,'GRILL''D SOUTH YARRA',NULL);
INSERT INTO transactions_search_content VALUES(7,'PTV',NULL,NULL,'MYKI PTV MELBOURNE REFUND',NULL);
INSERT INTO transactions_search_content VALUES(8,'Typo',NULL,NULL,'TYPO MELBOURNE CENTRAL',NULL);
INSERT INTO transactions_search_content VALUES(9,'Woolworths',NULL,NULL,'WOOLWORTHS 3321 FITZROY',NULL);
INSERT INTO transactions_search_content VALUES(10,'Boost Mobile',NULL,NULL,'BOOST MOBILE RECHARGE',NULL);
INSERT INTO transactions_search_content VALUES(11,'Booking.com',NULL,NULL,'Booking.com, UBUD INDONESIA',NULL);
INSERT INTO transactions_search_content VALUES(12,'Seven Seeds',NULL,NULL,'SEVEN SEEDS CARLTON REFUND',NULL);
INSERT INTO transactions_search_content VALUES(13,'Bunnings Warehouse',NULL,NULL,'BUNNINGS 373000 NORTHCOTE',NULL);
INSERT INTO transactions_search_content VALUES(14,'Seven Seeds',NULL,NULL,'SEVEN SEEDS CARLTON',NULL);
INSERT INTO transactions_search_content VALUES(15,'Kmart',NULL,NULL,'KMART 1044 BRUNSWICK',NULL);
INSERT INTO transactions_search_content VALUES(16,'PTV',NULL,NULL,'MYKI PTV MELBOURNE',NULL);
INSERT INTO transactions_search_content VALUES(17,'Harris Farm Markets',NULL,NULL,'HARRIS FARM MKTS BONDI','Japan 🇯🇵 Tax Deductible Work Expense');
INSERT INTO transactions_search_content VALUES(18,'Chin Chin',NULL,NULL,'CHIN CHIN RESTAURANT MELBOURNE',NULL);
INSERT INTO transactions_search_content VALUES(19,'Woolworths',NULL,NULL,'WOOLWORTHS 3321 FITZROY',NULL);
INSERT INTO transactions_search_content VALUES(20,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(21,'The Iconic',NULL,NULL,'THE ICONIC SYDNEY',NULL);
INSERT INTO transactions_search_content VALUES(22,'Steam',NULL,NULL,'STEAMGAMES.COM 4259522985',NULL);
INSERT INTO transactions_search_content VALUES(23,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(24,'Coles',NULL,NULL,'COLES 0785 RICHMOND',NULL);
INSERT INTO transactions_search_content VALUES(25,'Seven Seeds',NULL,NULL,'Seven Seeds',NULL);
INSERT INTO transactions_search_content VALUES(26,'Ticketek',NULL,NULL,'Ticketek',NULL);
INSERT INTO transactions_search_content VALUES(27,'Woolworths',NULL,NULL,'Woolworths',NULL);
INSERT INTO transactions_search_content VALUES(28,'Sam Smith','Half the concert tickets 🎸',NULL,NULL,NULL);
INSERT INTO transactions_search_content VALUES(29,'Alex Jones','Half the concert tickets 🎸',NULL,NULL,NULL);
CREATE TABLE IF NOT EXISTS 'transactions_search_docsize'(id INTEGER PRIMARY KEY, sz BLOB);
INSERT INTO transactions_search_docsize VALUES(1,X'0100000200');
INSERT INTO transactions_search_docsize VALUES(2,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(3,X'0300000300');
INSERT INTO transactions_search_docsize VALUES(4,X'0300000500');
INSERT INTO transactions_search_docsize VALUES(5,X'0100000500');
INSERT INTO transactions_search_docsize VALUES(6,X'0200000400');
INSERT INTO transactions_search_docsize VALUES(7,X'0100000400');
INSERT INTO transactions_search_docsize VALUES(8,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(9,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(10,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(11,X'0200000400');
INSERT INTO transactions_search_docsize VALUES(12,X'0200000400');
INSERT INTO transactions_search_docsize VALUES(13,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(14,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(15,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(16,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(17,X'0300000405');
INSERT INTO transactions_search_docsize VALUES(18,X'0200000400');
INSERT INTO transactions_search_docsize VALUES(19,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(20,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(21,X'0200000300');
INSERT INTO transactions_search_docsize VALUES(22,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(23,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(24,X'0100000300');
INSERT INTO transactions_search_docsize VALUES(25,X'0200000200');
INSERT INTO transactions_search_docsize VALUES(26,X'0100000100');
INSERT INTO transactions_search_docsize VALUES(27,X'0100000100');
INSERT INTO transactions_search_docsize VALUES(28,X'0204000000');
INSERT INTO transactions_search_docsize VALUES(29,X'0204000000');
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
INSERT INTO people VALUES('alex','e77b7d59-e422-4a78-b36e-3ad9af4ddc8f','Alex','ok',NULL,'2026-12-02T12:16:28.696017Z',NULL,'2026-12-02T12:16:30.380671Z');
INSERT INTO people VALUES('sam','c14fe0b1-490a-43c3-adaa-eaef47687de4','Sam','ok',NULL,'2026-12-02T12:16:28.720043Z',NULL,'2026-12-02T12:16:30.383174Z');
CREATE TABLE account_people (
    account_id  TEXT NOT NULL,
    person      TEXT NOT NULL,
    seen_at     TEXT NOT NULL, listed INTEGER NOT NULL DEFAULT 1,       -- the last listing of the person's accounts that had it
    PRIMARY KEY (account_id, person)
) STRICT, WITHOUT ROWID;
INSERT INTO account_people VALUES('482961c4-3bca-4130-8d3a-5eb0aae7267d','sam','2026-12-02T12:16:28.860610Z',1);
INSERT INTO account_people VALUES('8764acb9-602e-4be8-a994-f92946dddf91','alex','2026-12-02T12:16:28.823869Z',1);
INSERT INTO account_people VALUES('8764acb9-602e-4be8-a994-f92946dddf91','sam','2026-12-02T12:16:28.860610Z',1);
INSERT INTO account_people VALUES('96411555-3701-419c-8040-5c4d510b52ec','alex','2026-12-02T12:16:28.823869Z',1);
INSERT INTO account_people VALUES('af237736-483b-4a4e-8469-cccd9fb6eb7f','alex','2026-12-02T12:16:28.823869Z',1);
INSERT INTO account_people VALUES('bc530349-e95c-41bd-b264-556db2931833','sam','2026-12-02T12:16:28.860610Z',1);
INSERT INTO account_people VALUES('e3c563b9-a70c-42a1-aa2f-b8292f8d1c5b','alex','2026-12-02T12:16:28.823869Z',1);
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
CREATE TABLE monthly_totals (
    month               TEXT NOT NULL,    -- created_month; '' when unknown
    kind                TEXT NOT NULL,    -- 'spending' or 'income'
    account_id          TEXT NOT NULL,
    parent_category_id  TEXT NOT NULL,    -- spending: '' for none; income: ''
    category_id         TEXT NOT NULL,    -- spending: '' for none; income: the income type (transactionType, or 'Other')
    total_base_units    INTEGER NOT NULL, -- signed cents: the sum of amount_base_units
    count_out           INTEGER NOT NULL, -- of which money out (amount_base_units < 0)
    count               INTEGER NOT NULL, -- transactions
    PRIMARY KEY (month, kind, account_id, parent_category_id, category_id)
) STRICT, WITHOUT ROWID;
INSERT INTO monthly_totals VALUES('2025-10','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','good-life','restaurants-and-cafes',-1492,1,1);
INSERT INTO monthly_totals VALUES('2025-11','spending','bc530349-e95c-41bd-b264-556db2931833','home','groceries',-5584,1,1);
INSERT INTO monthly_totals VALUES('2025-12','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','','',-12411,1,1);
INSERT INTO monthly_totals VALUES('2025-12','spending','bc530349-e95c-41bd-b264-556db2931833','home','groceries',-3325,1,1);
INSERT INTO monthly_totals VALUES('2026-01','spending','8764acb9-602e-4be8-a994-f92946dddf91','good-life','restaurants-and-cafes',-737,1,1);
INSERT INTO monthly_totals VALUES('2026-02','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','good-life','holidays-and-travel',-50010,1,1);
INSERT INTO monthly_totals VALUES('2026-02','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','good-life','restaurants-and-cafes',3506,0,1);
INSERT INTO monthly_totals VALUES('2026-03','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','personal','mobile-phone',-3897,1,1);
INSERT INTO monthly_totals VALUES('2026-04','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','home','groceries',-5148,1,1);
INSERT INTO monthly_totals VALUES('2026-04','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','personal','gifts-and-charity',-5940,1,1);
INSERT INTO monthly_totals VALUES('2026-04','spending','bc530349-e95c-41bd-b264-556db2931833','good-life','games-and-software',-3020,1,1);
INSERT INTO monthly_totals VALUES('2026-04','spending','bc530349-e95c-41bd-b264-556db2931833','personal','clothing-and-accessories',-24729,1,1);
INSERT INTO monthly_totals VALUES('2026-05','spending','bc530349-e95c-41bd-b264-556db2931833','home','groceries',-5161,1,1);
INSERT INTO monthly_totals VALUES('2026-06','spending','8764acb9-602e-4be8-a994-f92946dddf91','home','groceries',-3741,1,1);
INSERT INTO monthly_totals VALUES('2026-06','spending','8764acb9-602e-4be8-a994-f92946dddf91','home','pets',-2639,1,1);
INSERT INTO monthly_totals VALUES('2026-06','spending','8764acb9-602e-4be8-a994-f92946dddf91','transport','public-transport',-464,1,1);
INSERT INTO monthly_totals VALUES('2026-06','spending','bc530349-e95c-41bd-b264-556db2931833','home','groceries',-14235,1,1);
INSERT INTO monthly_totals VALUES('2026-07','spending','bc530349-e95c-41bd-b264-556db2931833','good-life','restaurants-and-cafes',-13733,1,1);
INSERT INTO monthly_totals VALUES('2026-08','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','transport','public-transport',4784,0,1);
INSERT INTO monthly_totals VALUES('2026-08','spending','bc530349-e95c-41bd-b264-556db2931833','home','groceries',-1856,1,1);
INSERT INTO monthly_totals VALUES('2026-08','spending','bc530349-e95c-41bd-b264-556db2931833','transport','public-transport',-2453,1,1);
INSERT INTO monthly_totals VALUES('2026-09','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','good-life','restaurants-and-cafes',-3275,1,1);
INSERT INTO monthly_totals VALUES('2026-10','spending','bc530349-e95c-41bd-b264-556db2931833','home','homeware-and-appliances',-10066,1,1);
INSERT INTO monthly_totals VALUES('2026-11','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','transport','taxis-and-share-cars',-4838,1,1);
INSERT INTO monthly_totals VALUES('2026-12','income','bc530349-e95c-41bd-b264-556db2931833','','Osko Payment Received',0,0,0);
INSERT INTO monthly_totals VALUES('2026-12','spending','8764acb9-602e-4be8-a994-f92946dddf91','home','groceries',-8745,1,1);
INSERT INTO monthly_totals VALUES('2026-12','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','','',0,0,0);
INSERT INTO monthly_totals VALUES('2026-12','spending','af237736-483b-4a4e-8469-cccd9fb6eb7f','good-life','restaurants-and-cafes',-572,1,1);
INSERT INTO monthly_totals VALUES('2026-12','spending','bc530349-e95c-41bd-b264-556db2931833','good-life','events-and-gigs',-12000,1,1);
CREATE TABLE transactions_search_money (
    rowid             INTEGER PRIMARY KEY, -- transactions.rowid
    created_epoch     INTEGER,             -- transactions.created_epoch
    amount_base_units INTEGER NOT NULL     -- transactions.amount_base_units
) STRICT;
INSERT INTO transactions_search_money VALUES(1,1782273438,-2639);
INSERT INTO transactions_search_money VALUES(2,1781817640,-3741);
INSERT INTO transactions_search_money VALUES(3,1780883634,-464);
INSERT INTO transactions_search_money VALUES(4,1768043290,-737);
INSERT INTO transactions_search_money VALUES(5,1794560561,-4838);
INSERT INTO transactions_search_money VALUES(6,1790644185,-3275);
INSERT INTO transactions_search_money VALUES(7,1786104814,4784);
INSERT INTO transactions_search_money VALUES(8,1777446191,-5940);
INSERT INTO transactions_search_money VALUES(9,1776565385,-5148);
INSERT INTO transactions_search_money VALUES(10,1773471985,-3897);
INSERT INTO transactions_search_money VALUES(11,1771794194,-50010);
INSERT INTO transactions_search_money VALUES(12,1770628371,3506);
INSERT INTO transactions_search_money VALUES(13,1766521550,-12411);
INSERT INTO transactions_search_money VALUES(14,1761723136,-1492);
INSERT INTO transactions_search_money VALUES(15,1791590431,-10066);
INSERT INTO transactions_search_money VALUES(16,1786960742,-2453);
INSERT INTO transactions_search_money VALUES(17,1786622200,-1856);
INSERT INTO transactions_search_money VALUES(18,1783464382,-13733);
INSERT INTO transactions_search_money VALUES(19,1782688592,-14235);
INSERT INTO transactions_search_money VALUES(20,1780127804,-5161);
INSERT INTO transactions_search_money VALUES(21,1775604673,-24729);
INSERT INTO transactions_search_money VALUES(22,1775189266,-3020);
INSERT INTO transactions_search_money VALUES(23,1765534243,-3325);
INSERT INTO transactions_search_money VALUES(24,1763163569,-5584);
INSERT INTO transactions_search_money VALUES(25,1796213790,-572);
INSERT INTO transactions_search_money VALUES(26,1796213790,-12000);
INSERT INTO transactions_search_money VALUES(27,1796213791,-8745);
INSERT INTO transactions_search_money VALUES(28,1796213792,-6000);
INSERT INTO transactions_search_money VALUES(29,1796213792,6000);
CREATE TABLE feed_rows (
    feed            TEXT NOT NULL,     -- the feed's name in the feeds file
    transaction_id  TEXT NOT NULL,     -- the bank transaction: the row's import id
    app_id          TEXT NOT NULL,     -- the row's id in the app
    app_account     TEXT NOT NULL,     -- the app account's id
    date            TEXT NOT NULL,     -- the facts last given the app: createdAt's local date,
    amount          INTEGER NOT NULL,  -- the amount in base units (cents),
    cleared         INTEGER NOT NULL,  -- 1 when SETTLED
    transfer_id     TEXT,              -- the other leg's bank id when the app links the two as a transfer
    -- 'pushed': the app holds it as given; 'deleted_in_app': the person
    -- deleted it there (never put back unless asked); 'reconciled': the
    -- person reconciled it (never changed again)
    state           TEXT NOT NULL CHECK (state IN ('pushed', 'deleted_in_app', 'reconciled')),
    pushed_at       TEXT NOT NULL,
    PRIMARY KEY (feed, transaction_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE feed_pending (
    feed            TEXT NOT NULL,
    transaction_id  TEXT NOT NULL,
    reason          TEXT NOT NULL,
    since           TEXT NOT NULL,
    PRIMARY KEY (feed, transaction_id)
) STRICT, WITHOUT ROWID;
CREATE TABLE feed_state (
    feed             TEXT PRIMARY KEY,
    cursor           INTEGER NOT NULL DEFAULT 0, -- the transaction_history seq handled
    last_push_at     TEXT,                       -- the last round that reached the app
    last_error       TEXT,                       -- the last round's failure, NULL after a success
    failing_since    TEXT,                       -- the first failure since the last success
    next_attempt_at  TEXT,                       -- backoff: no round before then
    last_check_at    TEXT,
    last_check       TEXT,                       -- JSON: what the last check found, by kind
    updated_at       TEXT NOT NULL
) STRICT;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','transactions_search_amount','transactions_search_amount',0,'CREATE VIRTUAL TABLE transactions_search_amount USING fts5(
    description, message, note, raw_text, tags,
    content = '''', detail = none, columnsize = 0,
    tokenize = ''unicode61 remove_diacritics 2''
)');
CREATE TABLE IF NOT EXISTS 'transactions_search_amount_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO transactions_search_amount_data VALUES(1,X'1d2e08005505');
INSERT INTO transactions_search_amount_data VALUES(10,X'00000000010a0a000a0101010201010301010401010501010601010701010801010901010a0101');
INSERT INTO transactions_search_amount_data VALUES(137438953473,X'000004af053030373835fffffda38080808018b4efffffff7c81b1bfffffff6eb48080808015010431303434fffffb8af08080800f010433333231fffff986a88080801388efefffffff7602053733303030fffff9f8a88080800d010a34323539353232393835fffffec3a0808080160105626f6e6469ffffff8c808080801103056f6b696e67ffffe7cab08080800b04027374fffffe8cb88080800a020872756e737769636bfffffb8af08080800f0207756e6e696e6773fffff9f8a88080800d01076361726c746f6effffffa2e08080800e84f0dfffffff7e0206656e7472616cfffffd8ce080808008020368696efffff9a5d88080801202056f62757267fffffedb8880808001030466666565ffffffd1f88080800403036c6573fffffda38080808018b4efffffff7c81b1bfffffff6eb4808080801503016dffffe7cab08080800bac8ebfffffff7a81e3a080808011010164fffffeb3a8808080060209656475637469626c65ffffff8c80808080110107657870656e7365ffffff8c808080801101046661726dffffff8c8080808011020669747a726f79fffff986a88080801388efefffffff7602026f72ffffffe3808080800301056772696c6cfffffeb3a8808080060106686172726973ffffff8c80808080110203656c70fffffdd1d080808005010669636f6e6963fffff3f6b88080801502086e646f6e65736961ffffe7cab08080800b01056a6170616effffff8c808080801101056b6d617274fffffb8af08080800f01046c616e65ffffffd1f88080800401066d61726b6574ffffffd1f880808004070173ffffff8c80808080110208656c626f75726e65fffff9a5d88080801287ce8fffffff7683b3f08080800881d6bfffffff7485b2908080800302036b7473ffffff8c808080801102056f62696c65fffffe8cb88080800a0203796b69fffffee6d8808080108788cfffffff7701096e6f727468636f7465fffff9f8a88080800d02027377ffffffe3808080800301046f70616cffffffe3808080800301077065746261726efffffedb888080800102027476fffffee6d8808080108788cfffffff7701087265636861726765fffffe8cb88080800a030466756e6483b6a08080800c819fdfffffff7b03087374617572616e74fffff9a5d88080801202076963686d6f6e64fffffda38080808018b4efffffff7c81b1bfffffff6eb4808080801501057365656473ffffffa2e08080800e84f0dfffffff7e030376656effffffa2e08080800e84f0dfffffff7e02046f757468fffffeb3a880808006020171ffffffd1f88080800402047465616dfffffec3a080808016060567616d6573fffffec3a080808016020579646e6579fffff3f6b88080801597d98fffffff6e0103746178ffffff8c808080801102026865fffff3f6b880808015020872616e73706f7274ffffffe380808080030a06666f726e7377ffffffe3808080800303026970fffffdd1d080808005020379706ffffffd8ce080808008010475626572fffffdd1d08080800503027564ffffe7cab08080800b010977617265686f757365fffff9f8a88080800d02096f6f6c776f72746873fffff986a88080801388efefffffff760302726bffffff8c808080801101057961727261fffffeb3a88080800604220f16101510100d131219110e100f211a0c14120f180d10110e111310100f110c2f0e1015140d0f12141314132517150f0c0f10170e0d13110d0e0f0d141b0d');
INSERT INTO transactions_search_amount_data VALUES(274877906945,X'0000002206307365656473ffffffdfc080808019030376656effffffdfc0808080190410');
INSERT INTO transactions_search_amount_data VALUES(412316860417,X'0000001709307469636b6574656bfffffa92808080801a04');
INSERT INTO transactions_search_amount_data VALUES(549755813889,X'0000002406307365656473ffffffdfc08080801900030376656effffffdfc080808019000411');
INSERT INTO transactions_search_amount_data VALUES(687194767361,X'0000002206307365656473ffffffdca080808019030376656effffffdca0808080190410');
INSERT INTO transactions_search_amount_data VALUES(824633720833,X'000000190b30776f6f6c776f72746873fffffbddb88080801b04');
INSERT INTO transactions_search_amount_data VALUES(962072674305,X'000000610830636f6e63657274fffffd89808080801c010468616c66fffffd89808080801c010373616dfffffd89808080801c02046d697468fffffd89808080801c0103746865fffffd89808080801c020669636b657473fffffd89808080801c04120f0e0f0e');
INSERT INTO transactions_search_amount_data VALUES(1099511627777,X'000000570530616c657885ee808080801d0107636f6e6365727485ee808080801d010468616c6685ee808080801d01056a6f6e657385ee808080801d010374686585ee808080801d020669636b65747385ee808080801d040d100d0e0c');
INSERT INTO transactions_search_amount_data VALUES(1236950581249,X'0000002608306465706f736974fffff69e808080801e0105686f74656cfffff69e808080801e0412');
INSERT INTO transactions_search_amount_data VALUES(1374389534721,X'0000002808306465706f736974fffff69e808080801e000105686f74656cfffff69e808080801e000413');
CREATE TABLE IF NOT EXISTS 'transactions_search_amount_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO transactions_search_amount_idx VALUES(1,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(2,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(3,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(4,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(5,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(6,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(7,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(8,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(9,X'',2);
INSERT INTO transactions_search_amount_idx VALUES(10,X'',2);
CREATE TABLE IF NOT EXISTS 'transactions_search_amount_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO transactions_search_amount_config VALUES('version',4);
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','transactions_search_time','transactions_search_time',0,'CREATE VIRTUAL TABLE transactions_search_time USING fts5(
    description, message, note, raw_text, tags,
    content = '''', detail = none, columnsize = 0,
    tokenize = ''unicode61 remove_diacritics 2''
)');
CREATE TABLE IF NOT EXISTS 'transactions_search_time_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO transactions_search_time_data VALUES(1,X'1d2e08005505');
INSERT INTO transactions_search_time_data VALUES(10,X'000000000109090009010101020101030101040101050101060101070101080101090101');
INSERT INTO transactions_search_time_data VALUES(137438953473,X'000004d1053030373835b4c5f7db8880808018928b8e9fffffff7fefabc38fffffff7d8cf29dbfffffff6e010431303434b5b2b081f88080800f010433333231b4f987c8c880808009aedbd8f08080800a02053733303030b4d2dfacf08080800d010a34323539353232393835b4f3e7d190808080160105626f6e6469b59fb68fc08080801103056f6b696e67b4e6edf1908080800b04027374b4eda18f888080800a020872756e737769636bb5b2b081f88080800f0207756e6e696e6773b4d2dfacf08080800d01076361726c746f6eb4c0b8b0808080800ec3f8c2afffffff7e0206656e7472616cb4fcb5d2f880808008020368696eb593b09bf08080801202056f62757267b58eead9f080808001030466666565b4d8c6b1d08080800403036c6573b4c5f7db8880808018928b8e9fffffff7fefabc38fffffff7d8cf29dbfffffff6e03016db4e6edf1908080800b99f3c0808080800b80c9f2d1f7ffffffef010164b5aee1fdc8808080060209656475637469626c65b59fb68fc0808080110107657870656e7365b59fb68fc08080801101046661726db59fb68fc080808011020669747a726f79b4f987c8c880808009aedbd8f08080800a02026f72b589c48b908080800301056772696c6cb5aee1fdc8808080060106686172726973b59fb68fc0808080110203656c70b5bddaa38880808005010669636f6e6963b4f5b2bc888080801502086e646f6e65736961b4e6edf1908080800b01056a6170616eb59fb68fc08080801101056b6d617274b5b2b081f88080800f01046c616e65b4d8c6b1d08080800401066d61726b6574b4d8c6b1d080808004070173b59fb68fc0808080110208656c626f75726e65b4d8c6b1d080808004c7dec2d080808004adf591f08080800a9492c5ffffffff7586c3ef808080800902036b7473b59fb68fc08080801102056f62696c65b4eda18f888080800a0203796b69b59db9bef08080800786c3ef808080800901096e6f727468636f7465b4d2dfacf08080800d02027377b589c48b908080800301046f70616cb589c48b908080800301077065746261726eb58eead9f08080800102027476b59db9bef08080800786c3ef808080800901087265636861726765b4eda18f888080800a030466756e64b4e2b4d1988080800cf689dbafffffff7b03087374617572616e74b593b09bf08080801202076963686d6f6e64b4c5f7db8880808018928b8e9fffffff7fefabc38fffffff7d8cf29dbfffffff6e01057365656473b4c0b8b0808080800ec3f8c2afffffff7e030376656eb4c0b8b0808080800ec3f8c2afffffff7e02046f757468b5aee1fdc880808006020171b4d8c6b1d08080800402047465616db4f3e7d19080808016060567616d6573b4f3e7d19080808016020579646e6579b4f5b2bc8880808015a8a39e8fffffff6e0103746178b59fb68fc08080801102026865b4f5b2bc8880808015020872616e73706f7274b589c48b90808080030a06666f726e7377b589c48b908080800303026970b5bddaa38880808005020379706fb4fcb5d2f880808008010475626572b5bddaa3888080800503027564b4e6edf1908080800b010977617265686f757365b4d2dfacf08080800d02096f6f6c776f72746873b4f987c8c880808009aedbd8f08080800a0302726bb59fb68fc08080801101057961727261b5aee1fdc88080800604270f17101510100d13121a110e100f261d0c14120f190d10110e111310100f110c330e1016140d0f12151317132a18160f0c0f10180e0d13110d0e0f0d141c0d');
INSERT INTO transactions_search_time_data VALUES(274877906945,X'0000002206307365656473b5c481c1f080808019030376656eb5c481c1f0808080190410');
INSERT INTO transactions_search_time_data VALUES(412316860417,X'0000001709307469636b6574656bb5c481c1f08080801a04');
INSERT INTO transactions_search_time_data VALUES(549755813889,X'0000002606307365656473b5c481c1f0808080190000030376656eb5c481c1f08080801900000412');
INSERT INTO transactions_search_time_data VALUES(687194767361,X'000000190b30776f6f6c776f72746873b5c481c1f88080801b04');
INSERT INTO transactions_search_time_data VALUES(824633720833,X'000000610830636f6e63657274b5c481c2808080801c010468616c66b5c481c2808080801c010373616db5c481c2808080801c02046d697468b5c481c2808080801c0103746865b5c481c2808080801c020669636b657473b5c481c2808080801c04120f0e0f0e');
INSERT INTO transactions_search_time_data VALUES(962072674305,X'000000630530616c6578b5c481c2808080801d0107636f6e63657274b5c481c2808080801d010468616c66b5c481c2808080801d01056a6f6e6573b5c481c2808080801d0103746865b5c481c2808080801d020669636b657473b5c481c2808080801d040f120f100e');
INSERT INTO transactions_search_time_data VALUES(1099511627777,X'0000002608306465706f736974b5c481c2808080801e0105686f74656cb5c481c2808080801e0412');
INSERT INTO transactions_search_time_data VALUES(1236950581249,X'0000002808306465706f736974b5c481c2808080801e000105686f74656cb5c481c2808080801e000413');
CREATE TABLE IF NOT EXISTS 'transactions_search_time_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO transactions_search_time_idx VALUES(1,X'',2);
INSERT INTO transactions_search_time_idx VALUES(2,X'',2);
INSERT INTO transactions_search_time_idx VALUES(3,X'',2);
INSERT INTO transactions_search_time_idx VALUES(4,X'',2);
INSERT INTO transactions_search_time_idx VALUES(5,X'',2);
INSERT INTO transactions_search_time_idx VALUES(6,X'',2);
INSERT INTO transactions_search_time_idx VALUES(7,X'',2);
INSERT INTO transactions_search_time_idx VALUES(8,X'',2);
INSERT INTO transactions_search_time_idx VALUES(9,X'',2);
CREATE TABLE IF NOT EXISTS 'transactions_search_time_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO transactions_search_time_config VALUES('version',4);
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','transactions_search_terms','transactions_search_terms',0,'CREATE VIRTUAL TABLE transactions_search_terms USING fts5vocab(transactions_search_amount, row)');
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
CREATE VIEW household_transfer_pairs AS
SELECT a.id, a.best_id AS other_id
FROM household_transfer_candidates a
WHERE a.best_id IS NOT NULL
    AND (SELECT b.best_id FROM household_transfer_candidates b WHERE b.id = a.best_id) = a.id;
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
    person,                                              -- people.name; NULL: not known (see performing_customer)
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
    -sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers, -- dollars of them (net)
    performing_customer                                  -- as the bank names who made them
FROM v_transactions
WHERE status = 'SETTLED' AND NOT is_transfer AND NOT is_interest AND NOT excluded_from_spending
    AND account_type IS NOT 'HOME_LOAN'
    AND (amount_base_units < 0 OR offsets_spending)
GROUP BY created_month, account_id, parent_category_id, category_id, performing_customer
;
CREATE VIEW v_monthly_income_by_person AS
SELECT
    created_month AS month,                              -- 'YYYY-MM' in the customer's zone
    person,                                              -- people.name; NULL: not known (see performing_customer)
    account_id,
    account_name,
    account_type,
    coalesce(transaction_type, 'Other') AS income_type,  -- the bank's transactionType: 'Salary', 'Interest', ...
    sum(amount_base_units) / 100.0 AS total_income,      -- dollars
    sum(amount_base_units) AS total_income_base_units,   -- cents
    count(*) AS count,
    sum(household_transfer) AS household_transfer_count, -- of which payments from another person of the household
    sum(CASE WHEN household_transfer THEN amount_base_units ELSE 0 END) / 100.0 AS household_transfers, -- dollars of them
    performing_customer                                  -- as the bank names who made them
FROM v_transactions
WHERE status = 'SETTLED' AND amount_base_units > 0 AND NOT is_transfer AND NOT is_refund AND NOT offsets_spending
    AND account_type IS NOT 'HOME_LOAN'
GROUP BY created_month, account_id, coalesce(transaction_type, 'Other'), performing_customer
;
CREATE VIEW monthly_totals_base AS
SELECT tx_rowid, transaction_id, month, kind, account_id,
    CASE kind WHEN 'spending' THEN parent_category_id ELSE '' END AS parent_category_id,
    CASE kind WHEN 'spending' THEN category_id ELSE income_type END AS category_id,
    amount_base_units
FROM (
    SELECT t.rowid AS tx_rowid, t.id AS transaction_id, coalesce(t.created_month, '') AS month, t.account_id,
        coalesce(t.parent_category_id, '') AS parent_category_id, coalesce(t.category_id, '') AS category_id,
        coalesce(t.transaction_type, 'Other') AS income_type, t.amount_base_units,
        CASE
            -- v_monthly_spending: SETTLED, not a transfer, not interest, not a
            -- household transfer; money out, or money in it nets
            -- (offsets_spending)
            WHEN t.status = 'SETTLED' AND t.transfer_account_id IS NULL AND t.household_transfer_id IS NULL
                AND NOT (t.category_id IS NULL AND (coalesce(t.transaction_type, '') LIKE 'Interest%'
                    OR (t.transaction_type IS NULL AND t.description = 'Interest')))
                AND (t.amount_base_units < 0
                    OR (t.amount_base_units > 0 AND (t.category_id IS NOT NULL
                        OR ((coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)
                            AND NOT (coalesce(t.transaction_type, '') LIKE 'Interest%'
                                OR (t.transaction_type IS NULL AND t.description = 'Interest'))))))
                THEN 'spending'
            -- v_monthly_income: SETTLED money in, not a transfer, not a
            -- refund, not netted against spending (no category), not a
            -- household transfer
            WHEN t.status = 'SETTLED' AND t.amount_base_units > 0 AND t.transfer_account_id IS NULL
                AND t.household_transfer_id IS NULL AND t.category_id IS NULL
                AND NOT (coalesce(t.transaction_type, '') IN ('Refund', 'Purchase') OR t.card_purchase_method IS NOT NULL)
                THEN 'income'
        END AS kind
    FROM transactions t
)
WHERE kind IS NOT NULL
;
CREATE VIEW monthly_totals_rows AS
SELECT b.* FROM monthly_totals_base b
WHERE b.kind = 'income' OR NOT coalesce((SELECT an.exclude_from_spending FROM transaction_annotations an
    WHERE an.transaction_id = b.transaction_id), 0);
CREATE TRIGGER transactions_search_money_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search_money (rowid, created_epoch, amount_base_units)
    VALUES (new.rowid, new.created_epoch, new.amount_base_units);
END;
CREATE TRIGGER transactions_search_money_update AFTER UPDATE OF created_epoch, amount_base_units ON transactions
WHEN new.created_epoch IS NOT old.created_epoch OR new.amount_base_units IS NOT old.amount_base_units
BEGIN
    UPDATE transactions_search_money SET created_epoch = new.created_epoch, amount_base_units = new.amount_base_units
    WHERE rowid = new.rowid;
END;
CREATE TRIGGER transactions_search_money_delete AFTER DELETE ON transactions BEGIN
    DELETE FROM transactions_search_money WHERE rowid = old.rowid;
END;
CREATE INDEX transactions_held_created ON transactions (status, julianday(created_at))
    WHERE status = 'HELD';
CREATE VIEW household_transfer_candidates AS
SELECT
    x.id,
    (SELECT c.id FROM (
        SELECT y.id, abs(y.created_epoch - x.created_epoch) AS distance
        FROM transactions y
        WHERE y.amount_base_units = -x.amount_base_units
            AND y.created_epoch BETWEEN x.created_epoch - 600 AND x.created_epoch + 600
            AND y.transfer_account_id IS NULL
            AND y.amount_currency = x.amount_currency
            AND y.account_id <> x.account_id
            AND (SELECT people FROM v_account_people WHERE account_id = y.account_id)
                <> (SELECT people FROM v_account_people WHERE account_id = x.account_id)
     ) AS c
     ORDER BY c.distance, c.id
     LIMIT 1) AS best_id
FROM transactions x
WHERE x.transfer_account_id IS NULL AND x.amount_base_units <> 0 AND x.created_epoch IS NOT NULL;
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
    household_transfer,                         -- 1 for a side of a payment between two people of the household
    excluded_from_spending                      -- 1 when a rule left it out of v_monthly_spending (v_transactions.excluded_from_spending)
FROM v_transactions
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
CREATE INDEX transactions_search_money_wide ON transactions_search_money (rowid)
WHERE amount_base_units NOT BETWEEN -2147483648 AND 2147483647 OR created_epoch NOT BETWEEN -2147483648 AND 2147483647 OR rowid >= 4294967296;
CREATE INDEX transaction_history_tx ON transaction_history (transaction_id, seq);
CREATE INDEX transactions_month_money ON transactions (
    created_month, account_id, parent_category_id, category_id, performing_customer, status, amount_base_units,
    transfer_account_id, transaction_type, card_purchase_method, description, household_transfer_id, created_epoch
);
CREATE TRIGGER transactions_search_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    VALUES (new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id));
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (new.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND new.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(new.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND coalesce(new.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;
CREATE TRIGGER transactions_search_update AFTER UPDATE OF description, message, note, raw_text, created_epoch, amount_base_units ON transactions
WHEN new.description IS NOT old.description OR new.message IS NOT old.message
    OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text
    OR new.created_epoch IS NOT old.created_epoch OR new.amount_base_units IS NOT old.amount_base_units
BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (old.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND old.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(old.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND coalesce(old.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = old.rowid
        AND (new.description IS NOT old.description OR new.message IS NOT old.message
        OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text OR new.rowid IS NOT old.rowid);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT new.rowid, new.description, new.message, new.note, new.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = new.id)
    WHERE new.description IS NOT old.description OR new.message IS NOT old.message
        OR new.note IS NOT old.note OR new.raw_text IS NOT old.raw_text OR new.rowid IS NOT old.rowid;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (new.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND new.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(new.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = new.rowid
    AND coalesce(new.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;
CREATE TRIGGER transactions_search_delete AFTER DELETE ON transactions BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (old.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND old.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(old.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions_search s WHERE s.rowid = old.rowid
    AND coalesce(old.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = old.rowid;
END;
CREATE TRIGGER transactions_search_tag_insert AFTER INSERT ON transaction_tags BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = new.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = new.transaction_id;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = new.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;
CREATE TRIGGER transactions_search_tag_delete AFTER DELETE ON transaction_tags BEGIN
    INSERT INTO transactions_search_amount (transactions_search_amount, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (transactions_search_time, rowid, description, message, note, raw_text, tags)
    SELECT 'delete', (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    DELETE FROM transactions_search WHERE rowid = (SELECT rowid FROM transactions WHERE id = old.transaction_id);
    INSERT INTO transactions_search (rowid, description, message, note, raw_text, tags)
    SELECT t.rowid, t.description, t.message, t.note, t.raw_text,
        (SELECT group_concat(tag_id, ' ') FROM transaction_tags WHERE transaction_id = t.id)
    FROM transactions t WHERE t.id = old.transaction_id;
    INSERT INTO transactions_search_amount (rowid, description, message, note, raw_text, tags)
    SELECT (t.amount_base_units << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND t.amount_base_units BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
    INSERT INTO transactions_search_time (rowid, description, message, note, raw_text, tags)
    SELECT (coalesce(t.created_epoch, 0) << 32) | s.rowid, s.description, s.message, s.note, s.raw_text, s.tags
    FROM transactions t JOIN transactions_search s ON s.rowid = t.rowid WHERE t.id = old.transaction_id
    AND coalesce(t.created_epoch, 0) BETWEEN -2147483648 AND 2147483647 AND s.rowid < 4294967296;
END;
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
CREATE TRIGGER monthly_totals_insert AFTER INSERT ON transactions BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_rows WHERE tx_rowid = new.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;
CREATE TRIGGER monthly_totals_delete BEFORE DELETE ON transactions BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_rows WHERE tx_rowid = old.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;
CREATE TRIGGER monthly_totals_update_before BEFORE UPDATE ON transactions
WHEN old.status IS NOT new.status OR old.amount_base_units IS NOT new.amount_base_units
    OR old.created_month IS NOT new.created_month OR old.account_id IS NOT new.account_id
    OR old.category_id IS NOT new.category_id OR old.parent_category_id IS NOT new.parent_category_id
    OR old.transfer_account_id IS NOT new.transfer_account_id OR old.transaction_type IS NOT new.transaction_type
    OR old.card_purchase_method IS NOT new.card_purchase_method OR old.description IS NOT new.description
    OR old.household_transfer_id IS NOT new.household_transfer_id OR old.id IS NOT new.id
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_rows WHERE tx_rowid = old.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;
CREATE TRIGGER monthly_totals_update_after AFTER UPDATE ON transactions
WHEN old.status IS NOT new.status OR old.amount_base_units IS NOT new.amount_base_units
    OR old.created_month IS NOT new.created_month OR old.account_id IS NOT new.account_id
    OR old.category_id IS NOT new.category_id OR old.parent_category_id IS NOT new.parent_category_id
    OR old.transfer_account_id IS NOT new.transfer_account_id OR old.transaction_type IS NOT new.transaction_type
    OR old.card_purchase_method IS NOT new.card_purchase_method OR old.description IS NOT new.description
    OR old.household_transfer_id IS NOT new.household_transfer_id OR old.id IS NOT new.id
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_rows WHERE tx_rowid = new.rowid
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;
CREATE TRIGGER monthly_totals_exclude_insert AFTER INSERT ON transaction_annotations
WHEN coalesce(new.exclude_from_spending, 0)
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_base WHERE transaction_id = new.transaction_id AND kind = 'spending'
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;
CREATE TRIGGER monthly_totals_exclude_update AFTER UPDATE ON transaction_annotations
WHEN coalesce(old.exclude_from_spending, 0) IS NOT coalesce(new.exclude_from_spending, 0)
    OR old.transaction_id IS NOT new.transaction_id
BEGIN
    -- back for the old, out for the new
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_base WHERE transaction_id = old.transaction_id AND kind = 'spending' AND coalesce(old.exclude_from_spending, 0)
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, -amount_base_units, -(amount_base_units < 0), -1
    FROM monthly_totals_base WHERE transaction_id = new.transaction_id AND kind = 'spending' AND coalesce(new.exclude_from_spending, 0)
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END
;
CREATE TRIGGER monthly_totals_exclude_delete AFTER DELETE ON transaction_annotations
WHEN coalesce(old.exclude_from_spending, 0)
BEGIN
    INSERT INTO monthly_totals (month, kind, account_id, parent_category_id, category_id, total_base_units, count_out, count)
    SELECT month, kind, account_id, parent_category_id, category_id, amount_base_units, amount_base_units < 0, 1
    FROM monthly_totals_base WHERE transaction_id = old.transaction_id AND kind = 'spending'
    ON CONFLICT DO UPDATE SET total_base_units = total_base_units + excluded.total_base_units,
        count_out = count_out + excluded.count_out, count = count + excluded.count;
END;
PRAGMA writable_schema=OFF;
COMMIT;
PRAGMA user_version = 21;
